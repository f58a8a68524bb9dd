import type { ServiceIdentifier } from '../shared/di.js';

/**
 * Resolves a host name to the IP addresses a connection to it could reach (live mode refuses
 * webhook urls that lead to loopback, private or link-local addresses).
 */
export interface AddressResolver {
  /** Every address of `hostname` (v4 and v6 text); rejects with an Error when it does not resolve. */
  resolve(hostname: string): Promise<string[]>;
}

/** Injection token of {@link AddressResolver}. */
export const AddressResolver = Symbol.for('agent-services/AddressResolver') as ServiceIdentifier<AddressResolver>;
