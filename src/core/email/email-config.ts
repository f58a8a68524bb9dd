import type { RetryOptions } from './retry-policy.js';

/** Where and how the SMTP listener edge listens. */
export interface SmtpEdgeOptions {
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** Port; 0 picks a free one (default 2525). */
  port?: number;
  /** Largest message accepted, in bytes, announced as SIZE (default 35 MiB, as the API). */
  maxMessageBytes?: number;
  /** Seconds an idle connection is kept (default 60). */
  idleSeconds?: number;
  /**
   * Credentials of the one account that may authenticate. AUTH (PLAIN, LOGIN) is offered only
   * when they are set; without an authenticated session, `MAIL FROM` an address of the service's
   * own domain is refused (550 5.7.1), so no one on the network can write as an agent.
   */
  auth?: { user: string; pass: string };
  /** Messages one connection may send per minute; the next is answered 451 4.7.1 (default: no limit). */
  maxMessagesPerMinute?: number;
}

/** Email settings of `RuntimeOptions.email`. */
export interface EmailOptions {
  /** Accept mail for the agents over SMTP: an inbound listener edge started by `runtime.listen()` (and `serve`). */
  smtp?: SmtpEdgeOptions;
  /** When the outbound queue retries and gives up (Postfix's defaults: 300s doubling to 4000s, 5 days). */
  queue?: RetryOptions;
  /**
   * Send mail for outside addresses through this SMTP relay, `smtp://user:pass@host:587` or
   * `smtps://...` (CLI `--smtp-relay`); a `providers.mailTransport` wins over it.
   */
  relay?: string;
}
