import type { ParsedMail } from '../../core/ports/mail-parser.js';
import { unfoldedValue, type HeaderLine } from './header-lines.js';
import { flatAddresses } from './mail-addresses.js';
import { plainAddresses, type AddressParser, type PlainAddresses } from './plain-addresses.js';

/** The fields of the port's {@link ParsedMail} that come from the header block. */
export type HeaderFields = Omit<ParsedMail, 'text' | 'html' | 'attachments'>;

/** The headers mailparser parses as addresses (and lists as their formatted text). */
const ADDRESS_KEYS = new Set(['from', 'to', 'cc', 'bcc', 'sender', 'reply-to', 'delivered-to', 'return-path', 'disposition-notification-to']);
/**
 * The headers whose value in the list is always the line as written: mailparser keeps a parsed
 * value without a text for them (a structure, a Date, a list of ids), or files it under another
 * key (the priority headers under `priority`, `List-*` under `list`).
 */
const AS_WRITTEN = new Set(['content-type', 'content-disposition', 'dkim-signature', 'date', 'references', 'x-priority', 'x-msmail-priority', 'importance']);
/** The headers mailparser keeps one value of (the first that is not empty), however often they occur. */
const SINGLE_KEYS = new Set([
  'message-id',
  'content-id',
  'from',
  'sender',
  'in-reply-to',
  'reply-to',
  'subject',
  'date',
  'content-disposition',
  'content-type',
  'content-transfer-encoding',
  'priority',
  'mime-version',
  'content-description',
  'precedence',
  'errors-to',
  'disposition-notification-to',
]);

/** A value mailparser keeps for a header: its text, or the parsed addresses of an address header. */
type Kept = string | PlainAddresses;

/** A Message-ID in angle brackets, as mailparser's `ensureMessageIDFormat`; undefined when empty. */
function messageId(value: string): string | undefined {
  if (value === '') return undefined;
  return (value.startsWith('<') ? '' : '<') + value + (value.endsWith('>') ? '' : '>');
}

/** The value kept first under `key`, when it is a text. */
function firstText(kept: Map<string, Kept[]>, key: string): string | undefined {
  const value = kept.get(key)?.[0];
  return typeof value === 'string' ? value : undefined;
}

/** The addresses of the parsed address headers kept under `key`, the first occurrence alone if `first`. */
function addressesOf(kept: Map<string, Kept[]>, key: string, first = false): string[] {
  const values = (kept.get(key) ?? []) as PlainAddresses[];
  return flatAddresses(first ? values.slice(0, 1) : values);
}

/**
 * The header fields of a message whose header block is plain (ASCII, no encoded words), decoded as
 * mailparser's header processing decodes them, or undefined for a block holding a header whose
 * treatment is not reproduced here (`Priority`, `List`, an address with a punycode domain). For
 * such a block no value needs charset or encoded-word decoding, so mailparser's value of a header
 * is its unfolded text; address headers are parsed by the addressparser mailparser runs
 * ({@link plainAddresses}), and only their text form is built. What the list of headers shows for
 * each follows `mailFields`: the parsed text where mailparser keeps one for that occurrence, else
 * the line as written (see {@link AS_WRITTEN}); mailparser drops empty values, so an occurrence
 * takes the value at its position among the non-empty ones.
 */
export function plainHeaderFields(lines: HeaderLine[], parseAddresses: AddressParser): HeaderFields | undefined {
  // The values mailparser keeps per key, empty ones left out.
  const kept = new Map<string, Kept[]>();
  let references: string[] | undefined;
  for (const { key, line } of lines) {
    if (key === 'priority' || key === 'list') return undefined;
    const text = unfoldedValue(line);
    if (key === 'references') {
      references ??= [];
      for (const id of text.split(/\s+/)) if (id !== '') references.push(messageId(id)!);
    }
    if (AS_WRITTEN.has(key) || key.startsWith('list-')) continue;
    let value: Kept | undefined = text;
    if (ADDRESS_KEYS.has(key)) {
      // An address header always keeps a value; a punycode domain is one this path does not decode.
      value = plainAddresses(text, parseAddresses);
      if (value === undefined) return undefined;
    } else if (key === 'message-id' || key === 'in-reply-to') value = messageId(text);
    if (!value) continue;
    const values = kept.get(key);
    if (values) values.push(value);
    else kept.set(key, [value]);
  }

  const seen = new Map<string, number>();
  const headers: Array<[string, string]> = [];
  for (const { key, name, line } of lines) {
    const occurrence = seen.get(key) ?? 0;
    seen.set(key, occurrence + 1);
    const values = kept.get(key);
    // One value stands for all occurrences (mailparser keeps it alone), so only the first shows it.
    const value = values && (SINGLE_KEYS.has(key) || values.length === 1) ? (occurrence === 0 ? values[0] : undefined) : values?.[occurrence];
    headers.push([name, value === undefined ? line.slice(line.indexOf(':') + 1).trim() : typeof value === 'string' ? value : value.text]);
  }

  return {
    // From is a single header to mailparser: its first occurrence alone gives the sender.
    from: addressesOf(kept, 'from', true)[0] ?? null,
    to: addressesOf(kept, 'to'),
    cc: addressesOf(kept, 'cc'),
    bcc: addressesOf(kept, 'bcc'),
    subject: firstText(kept, 'subject') ?? '',
    messageId: firstText(kept, 'message-id') ?? null,
    inReplyTo: firstText(kept, 'in-reply-to') ?? null,
    references: references === undefined ? null : references.join(' '),
    headers,
  };
}
