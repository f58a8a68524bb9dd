import type { SecureContext } from 'node:tls';

/** A mail transaction as the client declared it. */
export interface Envelope {
  /** `MAIL FROM` ('' for the null sender). */
  from: string;
  /** Accepted `RCPT TO` addresses, in order. */
  recipients: string[];
  /** Whether the session authenticated (its user), or null. */
  user: string | null;
  /** The connecting client: its IP address and the name it gave in HELO or EHLO. */
  client: { address: string; helo: string };
  /** Whether the message came over TLS (after STARTTLS). */
  tls: boolean;
}

/**
 * What decides about mail: the receiver speaks the protocol, these answer for the service. A
 * reply is a complete SMTP reply line without its CRLF (`550 5.1.1 ...`); null accepts.
 */
export interface ReceiverPolicy {
  /** Checks AUTH credentials; without it AUTH is neither offered nor accepted. */
  authenticate?(user: string, pass: string): boolean;
  /** Decides `MAIL FROM`; `user` is the authenticated user or null. */
  mailFrom(address: string, user: string | null): string | null;
  /**
   * Decides one `RCPT TO`, at once or as a promise (a store lookup); while it is pending the
   * session reads no further command. A throw or a rejection is answered 421 and closes the session.
   */
  rcptTo(address: string): string | null | Promise<string | null>;
  /**
   * Takes a complete message: answers the reply to its end of data (`250 ...` once it is stored).
   * A rejection is answered `451 4.3.0`.
   */
  message(bytes: Buffer, envelope: Envelope): Promise<string>;
}

/** How the receiver speaks. */
export interface ReceiverOptions {
  /** The name in the greeting and in the answer to EHLO and HELO. */
  domain: string;
  /** Largest message, announced as SIZE; a larger one is drained and answered 552 5.3.4. */
  maxMessageBytes: number;
  /** A connection idle this long is answered 421 and closed. */
  idleSeconds: number;
  /** Messages one connection may start a minute; the next MAIL FROM is 451 4.7.1 (no limit without it). */
  maxMessagesPerMinute?: number;
  /** Recipients of one transaction; the next RCPT TO is 452 4.5.3 (default 1000). */
  maxRecipients?: number;
  /** Errors one connection may make before it is answered 421 and closed (default 10). */
  maxErrors?: number;
  /** The certificate and key: EHLO offers STARTTLS (RFC 3207); without it STARTTLS is 502. */
  tls?: SecureContext;
  /** With `tls`: MAIL (and AUTH) before STARTTLS is answered 530 5.7.0. */
  requireTls?: boolean;
}
