import type { AddressObject, HeaderLines, MailParser as LibraryParser, ParsedMail as LibraryMail } from 'mailparser';
import type { MailParser, ParsedMail } from '../../core/ports/mail-parser.js';
import { flatAddresses } from './mail-addresses.js';
import { withoutFinalBreak } from './mail-sections.js';
import { mailparserAddressParser, type AddressParser } from './plain-addresses.js';
import { plainMail } from './plain-mail.js';
import { singlePartMail } from './single-part-mail.js';

/** How mailparser is asked to parse: nothing derived, nothing rewritten, no checksums. */
export const MAILPARSER_OPTIONS = { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true, keepCidLinks: true, checksumAlgo: false } as const;

/** The addresses of an address header (one parsed object, or one per occurrence), groups flattened. */
function addresses(header: AddressObject | AddressObject[] | undefined): string[] {
  if (!header) return [];
  return flatAddresses(Array.isArray(header) ? header : [header]);
}

/** The decoded value of a header, from mailparser's parsed value where it is a text, else from the line. */
function headerValue(name: string, line: string, parsed: unknown, occurrence: number): string {
  const lower = name.toLowerCase();
  const value = Array.isArray(parsed) ? parsed[occurrence] : occurrence === 0 ? parsed : undefined;
  if (typeof value === 'string' && lower !== 'references' && lower !== 'date') return value;
  if (value && typeof value === 'object' && 'text' in value && typeof value.text === 'string') return value.text;
  return line.slice(line.indexOf(':') + 1).trim();
}

/**
 * RFC 5322 parsing with mailparser (MIME structure, encoded words, charsets, transfer encodings).
 * Plain text is never made up from HTML nor HTML from text, and `cid:` links are left as they
 * are, so a message stores what its sender wrote. Three ways, the first that takes the message:
 * a single-part text message with a plain header block (ASCII, no encoded words: all of what
 * `smtp-source` sends) is read directly into the port's fields ({@link plainMail}); another
 * single-part text message is read in one synchronous pass from mailparser's own pieces
 * ({@link singlePartMail}); everything else goes through simpleParser's streams. All three give
 * the same fields for the same bytes. mailparser is loaded by the first parse, not when the
 * runtime starts.
 */
export class MailparserMailParser implements MailParser {
  /**
   * mailparser, imported once (a dynamic import per message costs a module-loader round trip), the
   * addressparser it runs, and one idle parser whose header processing the single-part path shares.
   */
  private library: Promise<{ simpleParser: typeof import('mailparser').simpleParser; addressParser: AddressParser; headerParser: LibraryParser }> | undefined;

  async parse(raw: Uint8Array): Promise<ParsedMail> {
    const { simpleParser, addressParser, headerParser } = await (this.library ??= import('mailparser').then(({ simpleParser, MailParser }) => ({
      simpleParser,
      addressParser: mailparserAddressParser(),
      headerParser: new MailParser(MAILPARSER_OPTIONS),
    })));
    const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    return plainMail(bytes, addressParser) ?? mailFields(singlePartMail(bytes, headerParser, MAILPARSER_OPTIONS) ?? (await simpleParser(bytes, MAILPARSER_OPTIONS)));
  }
}

/** The port's fields from what mailparser's simpleParser answers (or the single-part path, in its shape). */
export function mailFields(mail: LibraryMail): ParsedMail {
  const seen = new Map<string, number>();
  const lines: HeaderLines = mail.headerLines;
  const headers = lines.map(({ key, line }): [string, string] => {
    const name = line.slice(0, line.indexOf(':')).trim();
    const occurrence = seen.get(key) ?? 0;
    seen.set(key, occurrence + 1);
    return [name, headerValue(name, line, mail.headers.get(key), occurrence)];
  });
  const from = addresses(mail.from)[0] ?? null;
  // A single-part body ends with the line break every message ends with (SMTP needs it before
  // the final dot); it is not part of what the sender wrote, so it is dropped. Multipart bodies
  // end at their boundary and are kept exactly.
  const type = mail.headers.get('content-type') as { value?: string } | undefined;
  const multipart = /^multipart\//i.test(type?.value ?? '');
  const body = (value: string | undefined | false) => (typeof value !== 'string' ? null : multipart ? value : withoutFinalBreak(value));
  const html = body(mail.html);
  // mailparser answers '' for a message with HTML and no plain text part: that is no text.
  const text = mail.text === '' && html !== null ? null : body(mail.text);
  return {
    from,
    to: addresses(mail.to),
    cc: addresses(mail.cc),
    bcc: addresses(mail.bcc),
    subject: mail.subject ?? '',
    text,
    html,
    messageId: mail.messageId ?? null,
    inReplyTo: mail.inReplyTo ?? null,
    references: mail.references === undefined ? null : Array.isArray(mail.references) ? mail.references.join(' ') : mail.references,
    headers,
    attachments: mail.attachments.map((attachment) => ({
      filename: attachment.filename ?? null,
      contentType: attachment.contentType,
      content: new Uint8Array(attachment.content.buffer, attachment.content.byteOffset, attachment.content.byteLength),
    })),
  };
}
