import type { HeaderLines, MailParser as LibraryParser, ParsedMail as LibraryMail } from 'mailparser';
import { MAX_HEADER_BYTES, headerEnd, undecodedBody } from './mail-sections.js';

/** The MIME node of mailparser's splitter (`@zone-eu/mailsplit`), as far as it is read here. */
interface MimeNode {
  addHeaderChunk(chunk: Buffer): boolean;
  parseHeaders(): void;
  headers: { lines: HeaderLines; getList(): HeaderLines };
  multipart: string | false;
  contentType: string | false;
  encoding: string | false;
  charset: string | false;
  disposition: string | false;
  flowed: boolean;
}

/**
 * The members of a mailparser `MailParser` this path uses. They are internal to mailparser (not in
 * its type declarations), which is why they are reached through a parser instance: the splitter's
 * node class and the header processing are then exactly the ones `simpleParser` runs, same version.
 */
interface ParserInternals {
  splitter: { node: { constructor: new (parent: false, config: object) => MimeNode } };
  processHeaders(lines: HeaderLines): LibraryMail['headers'];
}

/** The headers simpleParser copies onto its result, under their camel-case names. */
const TOP_HEADERS = ['subject', 'references', 'date', 'to', 'from', 'cc', 'bcc', 'message-id', 'in-reply-to', 'reply-to'];

/**
 * What `simpleParser` answers for a single-part text message, computed in one synchronous pass,
 * or undefined for anything else (multipart, attachments, transfer or charset decoding, flowed
 * text, no body, large headers), which the caller parses with `simpleParser`.
 *
 * simpleParser runs every message through a chain of streams (a chunking pass-through, the MIME
 * splitter, a decoder per part) that yields to the event loop between steps; for the plain mail
 * SMTP brings most that machinery is most of the parse. This path uses mailparser's own pieces for
 * everything but the streaming: the header block is read by the splitter's MIME node class and the
 * headers decoded by the parser's header processing, and the body is what mailparser makes of an
 * undecoded part ({@link undecodedBody}). It serves the single-part messages whose header block is
 * not plain (encoded words, 8-bit bytes, MIME parameters); a plain one, such as all of what
 * `smtp-source` sends, is read without mailparser by `plainMail` first.
 * `test/providers/mail/single-part-mail.test.ts` compares the paths on generated messages.
 */
export function singlePartMail(raw: Buffer, parser: LibraryParser, config: object): LibraryMail | undefined {
  const end = headerEnd(raw);
  // A message that starts with its empty line has no headers: rare, left to the full parser.
  if (end <= 0 || end > MAX_HEADER_BYTES) return undefined;
  const internals = parser as unknown as ParserInternals;
  const node = new internals.splitter.node.constructor(false, config);
  node.addHeaderChunk(raw.subarray(0, end));
  node.parseHeaders();
  const type = node.contentType || 'text/plain';
  if (node.multipart || (type !== 'text/plain' && type !== 'text/html')) return undefined;
  if ((node.disposition && node.disposition !== 'inline') || node.flowed) return undefined;
  if (node.encoding === 'base64' || node.encoding === 'quoted-printable') return undefined;
  if (!['ascii', 'usascii', 'utf8'].includes((node.charset || 'utf-8').toLowerCase().replace(/[^a-z0-9]+/g, ''))) return undefined;

  const headerLines = node.headers.lines;
  const headers = internals.processHeaders(node.headers.getList());
  const content = undecodedBody(raw, end);
  const mail = { headers, headerLines, attachments: [] } as unknown as Record<string, unknown>;
  // As mailparser's getTextContent: an HTML-only root gets '' as its text (no HTML-to-text
  // conversion is asked for), and an empty part gives neither.
  if (content && type === 'text/plain') mail.text = content;
  if (content && type === 'text/html') {
    mail.text = '';
    mail.html = content;
  }
  for (const key of TOP_HEADERS) {
    if (headers.has(key)) mail[key.replace(/-([a-z])/g, (_match, letter: string) => letter.toUpperCase())] = headers.get(key);
  }
  return mail as unknown as LibraryMail;
}
