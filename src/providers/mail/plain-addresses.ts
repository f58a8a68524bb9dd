import { createRequire } from 'node:module';
import type { EmailAddress } from 'mailparser';

/** nodemailer's addressparser: the entries of an address header's value (groups nested). */
export type AddressParser = (value: string) => EmailAddress[];

/** One parsed address header as mailparser keeps it, less the HTML form nothing here reads. */
export interface PlainAddresses {
  value: EmailAddress[];
  /** The addresses as mailparser's plain-text form shows them (display names quoted). */
  text: string;
}

/**
 * The addressparser mailparser itself runs: resolved from mailparser's folder, because npm may
 * give mailparser a nodemailer of its own, and versions read some addresses differently (10.6
 * joins a domain spaced around its dots, 10.3 does not).
 */
export function mailparserAddressParser(): AddressParser {
  const fromMailparser = createRequire(createRequire(import.meta.url).resolve('mailparser'));
  return fromMailparser('nodemailer/lib/addressparser') as AddressParser;
}

/** mailparser's `formatAddressesText`: names quoted (quotes and backslashes escaped), groups as `"name": members;`. */
function formatText(entries: EmailAddress[]): string {
  let joined = '';
  for (const [index, entry] of entries.entries()) {
    let text = entry.name ? `"${entry.name.replace(/["\\]/g, '\\$&')}"` + (entry.group ? ': ' : '') : '';
    if (entry.address) text += entry.name ? ` <${entry.address}>` : entry.address;
    joined += (index === 0 ? '' : ', ') + (entry.group ? text + formatText(entry.group) + ';' : text);
  }
  return joined;
}

/** mailparser's `decodeAddresses` for entries without encoded words: names trimmed; false for a punycode domain. */
function trimNames(entries: EmailAddress[]): boolean {
  for (const entry of entries) {
    entry.name = (entry.name || '').toString().trim();
    if (entry.address && entry.address.includes('@xn--')) return false;
    if (entry.group && !trimNames(entry.group)) return false;
  }
  return true;
}

/** One address and nothing else, bare or in angle brackets, of the plainest characters. */
const BARE_ADDRESS = /^(?:<([A-Za-z0-9._+-]+@[A-Za-z0-9.-]+)>|([A-Za-z0-9._+-]+@[A-Za-z0-9.-]+))$/;

/**
 * An address header's value (unfolded, ASCII, no encoded words) parsed as mailparser parses it,
 * or undefined when a domain is punycode (mailparser would decode it to Unicode). With no
 * encoded word to decode, mailparser's decoding of the entries only trims the display names.
 */
export function plainAddresses(value: string, parse: AddressParser): PlainAddresses | undefined {
  const bare = BARE_ADDRESS.exec(value);
  if (bare) {
    // What the addressparser answers for a lone address with no name, without its tokenizer.
    const address = bare[1] ?? bare[2]!;
    return address.includes('@xn--') ? undefined : { value: [{ address, name: '' }], text: address };
  }
  const entries = parse(value);
  return trimNames(entries) ? { value: entries, text: formatText(entries) } : undefined;
}
