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

/** What a transport did with a message. */
export interface TransportOutcome {
  /** Envelope recipients the next hop accepted. */
  accepted: string[];
  /** Envelope recipients it refused. */
  rejected: string[];
  /** The next hop's last answer, for the record (e.g. `250 2.0.0 OK queued`). */
  response: string;
}

/**
 * Hands outbound mail to the world outside the service: simulated (nothing leaves the process,
 * the service's outbox keeps the record) or SMTP to a relay. A transport rejects with an Error
 * when the hand-off failed as a whole (relay unreachable, every recipient refused).
 */
export interface MailTransport {
  send(mail: OutboundMail): Promise<TransportOutcome>;
}

/** Injection token of {@link MailTransport}. */
export const MailTransport = Symbol.for('agent-services/MailTransport') as ServiceIdentifier<MailTransport>;
