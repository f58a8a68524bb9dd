/** Id prefixes of DESIGN.md, one per resource kind. */
export const ID_PREFIX = {
  agent: 'agt',
  transaction: 'txn',
  invoice: 'inv',
  card: 'card',
  message: 'msg',
  thread: 'thr',
  attachment: 'att',
  memory: 'mem',
  file: 'file',
  sms: 'sms',
  call: 'call',
  credential: 'cred',
  browserSession: 'bs',
  job: 'job',
  webhook: 'wh',
  event: 'evt',
  delivery: 'dlv',
} as const;

/** A resource kind that has an id prefix. */
export type IdKind = keyof typeof ID_PREFIX;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE62_CODES = Array.from(BASE62, (char) => char.charCodeAt(0));

/** The character codes of each kind's prefix with its underscore (`msg_`). */
const PREFIX_CODES = Object.fromEntries(Object.entries(ID_PREFIX).map(([kind, prefix]) => [kind, Array.from(`${prefix}_`, (char) => char.charCodeAt(0))])) as Record<IdKind, number[]>;

/**
 * The id of a resource of `kind` from random bytes: its prefix, an underscore, and the bytes as
 * base62 text, one character per byte by rejection-free modulo. The small bias of `byte % 62` is
 * irrelevant for identifiers; secrets use {@link base62Secret}. The id is made as one string from
 * character codes: joined from its parts it would be a concatenation of three strings, which is
 * what every record keeping an id would then hold (96 bytes instead of 48 for a 28-character id).
 */
export function idFromBytes(kind: IdKind, bytes: Uint8Array): string {
  const prefix = PREFIX_CODES[kind];
  const codes = new Array<number>(prefix.length + bytes.length);
  for (let i = 0; i < prefix.length; i++) codes[i] = prefix[i]!;
  for (let i = 0; i < bytes.length; i++) codes[prefix.length + i] = BASE62_CODES[bytes[i]! % 62]!;
  return String.fromCharCode(...codes);
}

/** Unbiased base62 text of `length` characters drawn from a byte source (rejection sampling). */
export function base62Secret(length: number, nextBytes: (n: number) => Uint8Array): string {
  let text = '';
  while (text.length < length) {
    for (const byte of nextBytes(length)) {
      if (byte < 248 && text.length < length) text += BASE62[byte % 62];
    }
  }
  return text;
}
