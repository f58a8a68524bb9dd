import { isAscii } from 'node:buffer';
import type { ParsedMail } from '../../core/ports/mail-parser.js';
import { headerLines, unfoldedValue, type HeaderLine } from './header-lines.js';
import { MAX_HEADER_BYTES, headerEnd, undecodedBody, withoutFinalBreak } from './mail-sections.js';
import type { AddressParser } from './plain-addresses.js';
import { plainHeaderFields } from './plain-headers.js';

/**
 * What each MIME header may say for a message to be taken here: values whose meaning is plain
 * (no parameters but a UTF-8 or ASCII charset, no comments, no quoted encoding).
 */
const MIME_VALUES: Record<string, RegExp> = {
  'content-type': /^text\/(?:plain|html)(?:[ \t]*;[ \t]*charset=(?:utf-8|us-ascii|"utf-8"|"us-ascii"))?$/i,
  'content-transfer-encoding': /^(?:7bit|8bit|binary)$/i,
  'content-disposition': /^inline$/i,
};

/**
 * The body's type ('text/plain' without a Content-Type), or undefined when a `Content-*` header is
 * repeated, is not one of {@link MIME_VALUES}, or says more than they allow.
 */
function bodyType(lines: HeaderLine[]): string | undefined {
  const seen = new Set<string>();
  let type = 'text/plain';
  for (const { key, line } of lines) {
    if (!key.startsWith('content-')) continue;
    const text = unfoldedValue(line);
    if (seen.has(key) || !MIME_VALUES[key]?.test(text)) return undefined;
    seen.add(key);
    if (key === 'content-type')
      type = text
        .slice(0, text.indexOf(';') < 0 ? text.length : text.indexOf(';'))
        .trim()
        .toLowerCase();
  }
  return type;
}

/**
 * The port's {@link ParsedMail} for a single-part text message with a plain header block, read
 * directly, or undefined for any other message (the caller then takes mailparser's way).
 *
 * Plain means: a header block under 16 KiB of ASCII without encoded words (`=?`) or NUL bytes,
 * split into headers the way mailparser's splitter splits it ({@link headerLines}), no header
 * whose treatment is not reproduced ({@link plainHeaderFields}), and MIME headers that say
 * `text/plain` or `text/html` in UTF-8 or ASCII with no transfer encoding to undo, inline
 * ({@link MIME_VALUES}). That is what `smtp-source` sends and most plain mail. The result is what
 * `mailFields` makes of simpleParser's answer for the same bytes, field for field; the header
 * values come out as they are written because nothing in such a block needs decoding, which spares
 * mailparser's MIME node and its header processing (a Buffer round trip per header, Date parsing,
 * address formatting as HTML). `test/providers/mail/single-part-mail.test.ts` compares the two.
 */
export function plainMail(raw: Buffer, parseAddresses: AddressParser): ParsedMail | undefined {
  const end = headerEnd(raw);
  if (end <= 0 || end > MAX_HEADER_BYTES) return undefined;
  const head = raw.subarray(0, end);
  if (!isAscii(head)) return undefined;
  const block = head.toString('latin1');
  if (block.includes('=?') || block.includes('\0')) return undefined;
  const lines = headerLines(block);
  if (lines === undefined) return undefined;
  const type = bodyType(lines);
  if (type === undefined) return undefined;
  const fields = plainHeaderFields(lines, parseAddresses);
  if (fields === undefined) return undefined;

  const content = undecodedBody(raw, end);
  // As mailparser's getTextContent and `mailFields`: an empty part gives neither body, and an
  // HTML-only message has no text.
  const body = content === '' ? null : withoutFinalBreak(content);
  // Written out rather than spread: a spread of the header fields cost more than all the rest.
  const { from, to, cc, bcc, subject, messageId, inReplyTo, references, headers } = fields;
  const text = type === 'text/plain' ? body : null;
  const html = type === 'text/html' ? body : null;
  return { from, to, cc, bcc, subject, text, html, messageId, inReplyTo, references, headers, attachments: [] };
}
