import type { ServiceIdentifier } from '../shared/di.js';

/** One attachment of an outbound message; its bytes are streamed from the blob store. */
export interface OutboundAttachment {
  filename: string;
  contentType: string;
  size: number;
  open(): AsyncIterable<Uint8Array>;
}

/** A message from an agent to addresses outside the service, ready for a transport. */
export interface OutboundMail {
  /** The RFC 5322 Message-ID, angle brackets included: `<msg_x@service_domain>`. */
  messageId: string;
  /** When the message was sent, ms since the Unix epoch (the Date header). */
  date: number;
  from: string;
  /** Header recipients, which may include agents of the service. */
  to: string[];
  cc: string[];
  /** Who the transport delivers to: every recipient outside the service, bcc included. */
  envelope: { from: string; to: string[] };
  subject: string;
  text: string | null;
  html: string | null;
  /** Threading headers of a reply (msg-id tokens), or null. */
  inReplyTo: string | null;
  references: string | null;
  attachments: OutboundAttachment[];
}

/** Why the next hop refused one envelope recipient. */
export interface RecipientRefusal {
  address: string;
  /** The SMTP reply code of the refusal (4xx: try again later, 5xx: never), or null when unknown. */
  replyCode: number | null;
  /** The reply's text, for the record and the bounce (`550 5.1.1 <x@example.com>: no such user`). */
  response: string;
}

/** What a transport did with a message. */
export interface TransportOutcome {
  /** Envelope recipients the next hop accepted. */
  accepted: string[];
  /** Envelope recipients it refused. */
  rejected: string[];
  /** The next hop's last answer, for the record (e.g. `250 2.0.0 OK queued`). */
  response: string;
  /** Why each refused recipient was refused; a refused recipient without one counts as refused for good (5xx). */
  refusals?: RecipientRefusal[];
}

/**
 * A hand-off that failed as a whole, carrying the SMTP reply code that decides what happens next:
 * 4xx (and no code at all: connection refused or lost, a timeout) is temporary and the queue tries
 * again later; 5xx is permanent and the sender gets a bounce. Transports (and fault injection of
 * the `mail.send` target) throw it; the outbound queue classifies failures by it.
 */
export class MailTransportError extends Error {
  /** The SMTP reply code (421, 451, 550, 554, ...), or null when the next hop never answered. */
  readonly replyCode: number | null;
  /** How long the next hop asked to wait before the next attempt, ms (otherwise the queue's backoff applies). */
  readonly retryAfterMs: number | null;

  constructor(replyCode: number | null, message: string, retryAfterMs: number | null = null) {
    super(message);
    this.name = 'MailTransportError';
    this.replyCode = replyCode;
    this.retryAfterMs = retryAfterMs;
  }

  /** Whether the failure is temporary (4xx, or no reply at all) and worth another attempt. */
  get temporary(): boolean {
    return this.replyCode === null || this.replyCode < 500;
  }
}

/**
 * Hands outbound mail to the world outside the service: simulated (nothing leaves the process,
 * the service's outbox keeps the record) or SMTP to a relay. A transport rejects with a
 * {@link MailTransportError} when the hand-off failed as a whole (relay unreachable, every recipient
 * refused, a timeout); any other Error counts as temporary.
 */
export interface MailTransport {
  send(mail: OutboundMail): Promise<TransportOutcome>;
}

/** Injection token of {@link MailTransport}. */
export const MailTransport = Symbol.for('agent-services/MailTransport') as ServiceIdentifier<MailTransport>;
