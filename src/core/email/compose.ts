/**
 * Pure pieces of composing and threading mail: strict Base64, reply subjects, RFC 5322 dates,
 * Message-ID and References headers, snippets.
 */

/** Characters of a listing's snippet. */
export const SNIPPET_LENGTH = 140;

/**
 * Whether `text` is strict RFC 4648 Base64: the standard alphabet only (no white space, no
 * URL-safe characters), padded to a multiple of 4 with at most two trailing `=`.
 * Written as a loop, not a regular expression, because attachments can be tens of megabytes.
 */
export function isStrictBase64(text: string): boolean {
  if (text.length % 4 !== 0) return false;
  let padding = 0;
  if (text.endsWith('==')) padding = 2;
  else if (text.endsWith('=')) padding = 1;
  const end = text.length - padding;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    const ok = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47;
    if (!ok) return false;
  }
  return true;
}

/** The subject of a reply: `Re: ` once, never `Re: Re:` (any case of an existing `Re:` counts). */
export function replySubject(subject: string): string {
  return /^\s*re\s*:/i.test(subject) ? subject : `Re: ${subject}`;
}

/** A Message-ID header value for a service message id: `<msg_x@service_domain>`. */
export function messageIdHeader(messageId: string, serviceDomain: string): string {
  return `<${messageId}@${serviceDomain}>`;
}

/** The msg-id tokens (`<...>`) of a Message-ID, In-Reply-To or References value, in order. */
export function msgIds(value: string | undefined | null): string[] {
  if (!value) return [];
  return value.match(/<[^<>\s]+>/g) ?? [];
}

/**
 * The References of a reply (RFC 5322 §3.6.4): the parent's References (or, without them, its
 * In-Reply-To), followed by the parent's Message-ID.
 */
export function replyReferences(parent: { messageId: string; references?: string | undefined; inReplyTo?: string | undefined }): string {
  const chain = msgIds(parent.references);
  const base = chain.length > 0 ? chain : msgIds(parent.inReplyTo).slice(0, 1);
  return [...base.filter((id) => id !== parent.messageId), parent.messageId].join(' ');
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** An RFC 5322 date-time in UTC, e.g. `Thu, 01 Jan 2026 00:00:00 +0000`. */
export function rfc5322Date(epochMs: number): string {
  const date = new Date(epochMs);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${DAYS[date.getUTCDay()]}, ${two(date.getUTCDate())} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()} ` + `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/** Visible text of an HTML body, roughly: scripts and styles dropped, tags removed, common entities decoded. */
export function htmlToPlain(html: string): string {
  return html
    .replace(/<(script|style|head)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(amp|lt|gt|quot|apos|nbsp|#39);/g, (_, name: string) => ENTITIES[name] ?? ' ');
}

/** A short preview of a body: the text (or the HTML's visible text), white space collapsed. */
export function snippetOf(text: string | null, html: string | null): string {
  // Only the start is needed; bounding the slices keeps a megabyte body from being scanned whole.
  const source = text ?? (html === null ? '' : htmlToPlain(html.slice(0, SNIPPET_LENGTH * 64)));
  // Most bodies fill a snippet from their first 2 × SNIPPET_LENGTH characters; collapsing only
  // those spares a copy of 8 × as many. Bodies full of white space take the wide window.
  const narrow = source.length > SNIPPET_LENGTH * 2 ? snippetWithin(source, SNIPPET_LENGTH * 2, false) : undefined;
  return narrow ?? snippetWithin(source, SNIPPET_LENGTH * 8, true)!;
}

/**
 * The snippet read from the first `window` characters of `source`: white space collapsed, then the
 * first SNIPPET_LENGTH code points (a surrogate pair is one, a lone surrogate one too, as
 * Array.from counts them), found without an array of characters. A window that is not the `last`
 * answers undefined where the wide one could read differently: when it holds too little, or when
 * the cut reaches its final character (a run of white space or a surrogate pair it cut in two).
 */
function snippetWithin(source: string, window: number, last: boolean): string | undefined {
  const collapsed = source.slice(0, window).replace(/\s+/g, ' ').trim();
  if (collapsed.length <= SNIPPET_LENGTH) return last ? collapsed : undefined;
  let end = 0;
  for (let count = 0; count < SNIPPET_LENGTH && end < collapsed.length; count++) end += collapsed.codePointAt(end)! > 0xffff ? 2 : 1;
  if (!last && end >= collapsed.length) return undefined;
  return detached(collapsed.slice(0, end));
}

/**
 * A copy of `text` that shares no characters with another string. V8 answers a slice of a long
 * string with a view into it, which keeps all of that string alive: a snippet cut from the first
 * 1,120 characters of a body kept 1.1 KB per stored message. JSON's round trip is exact for every
 * string (a lone surrogate is written as an escape and read back).
 */
function detached(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}
