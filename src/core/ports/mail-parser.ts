import type { ServiceIdentifier } from '../shared/di.js';

/** One attachment of a parsed message. */
export interface ParsedAttachment {
  /** The part's file name, or null when it named none. */
  filename: string | null;
  contentType: string;
  content: Uint8Array;
}

/** An RFC 5322 message taken apart: decoded headers, bodies and attachments. */
export interface ParsedMail {
  /** The address of the From header, or null without one. */
  from: string | null;
  /** Addresses of the To, Cc and Bcc headers (groups flattened). */
  to: string[];
  cc: string[];
  bcc: string[];
  /** The decoded Subject, '' without one. */
  subject: string;
  /** The text/plain body, or null. */
  text: string | null;
  /** The text/html body, or null. */
  html: string | null;
  /** Message-ID, In-Reply-To and References as they appear (msg-id tokens), or null. */
  messageId: string | null;
  inReplyTo: string | null;
  references: string | null;
  /** Every header in order as [name as written, decoded one-line value]; repeated headers repeat. */
  headers: Array<[name: string, value: string]>;
  attachments: ParsedAttachment[];
}

/**
 * Parses raw RFC 5322 mail (MIME, encoded words, transfer encodings). Used by simulated inbound
 * mail and the SMTP listener alike, so both store the same message for the same bytes.
 */
export interface MailParser {
  /** @throws Error when the bytes are not a message that can be parsed */
  parse(raw: Uint8Array): Promise<ParsedMail>;
}

/** Injection token of {@link MailParser}. */
export const MailParser = Symbol.for('agent-services/MailParser') as ServiceIdentifier<MailParser>;
