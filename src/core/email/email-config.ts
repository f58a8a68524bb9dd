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
  /** PEM certificate (chain) and private key: EHLO offers STARTTLS (CLI `--smtp-tls-cert`, `--smtp-tls-key`). */
  tls?: { cert: string; key: string };
  /** With `tls`, MAIL and AUTH before STARTTLS are answered 530 5.7.0 (CLI `--smtp-require-tls`). */
  requireTls?: boolean;
  /**
   * Refuse, with 550 5.7.1 at the end of DATA, a message that fails DMARC when its From domain
   * publishes `p=reject` (CLI `--smtp-enforce-dmarc`); by default it is kept and flagged.
   */
  enforceDmarc?: boolean;
  /** The DNS server SPF, DKIM and DMARC are checked with, `HOST:PORT` (CLI `--dns-server`); default the system's. */
  dnsServer?: string;
  /** Longest DNS lookup before its check reads temperror, in ms (default 5000). */
  dnsTimeoutMs?: number;
  /** How long a DNS answer is reused, in seconds; 0 asks every time (default 30). */
  dnsCacheSeconds?: number;
}

/** The DKIM selector when none is given: records go at `agents._domainkey.<service domain>`. */
export const DEFAULT_DKIM_SELECTOR = 'agents';

/** Outbound DKIM signing (`RuntimeOptions.email.dkim`, CLI `--dkim-key`, `--dkim-selector`). */
export interface DkimOptions {
  /** PEM private key, RSA (2048 bits or more) or Ed25519. */
  privateKey: string;
  /** The selector, `s=` (default `agents`). */
  selector?: string;
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
  /** Sign every message handed to the relay with DKIM for the service domain. */
  dkim?: DkimOptions;
}
