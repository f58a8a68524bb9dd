import type { ServiceIdentifier } from './di.js';

/** The configurable names of DECISIONS.md, resolved for one runtime. */
export interface ServiceConfig {
  /** The domain of handles and mailboxes, default `agents.test`. */
  readonly serviceDomain: string;
  /** `http://HOST:PORT` of the API. */
  readonly baseUrl: string;
  /** Base of hosted payment pages, default `{baseUrl}/pay`. */
  readonly payUrl: string;
  /** Base of authenticated file downloads, default `{baseUrl}/files`. */
  readonly filesUrl: string;
}

/** Injection token of {@link ServiceConfig}. */
export const ServiceConfig = Symbol.for('agent-services/ServiceConfig') as ServiceIdentifier<ServiceConfig>;
