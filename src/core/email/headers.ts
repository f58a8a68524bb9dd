/**
 * The `headers` map of a stored message: header name → one-line decoded value. Well-known names
 * are written in their canonical case whatever case the message used, so `headers['Message-ID']`
 * always works; a repeated header (e.g. `Received`) keeps every value, joined by a line break. A
 * `Bcc` header is never kept: blind copies appear in no delivered header.
 */

const CANONICAL = new Map(
  [
    'Message-ID',
    'In-Reply-To',
    'References',
    'Date',
    'From',
    'Sender',
    'Reply-To',
    'To',
    'Cc',
    'Subject',
    'MIME-Version',
    'Content-Type',
    'Content-Transfer-Encoding',
    'Content-Disposition',
    'Return-Path',
    'Received',
    'DKIM-Signature',
    'Authentication-Results',
    'List-Unsubscribe',
    'List-Id',
    'Auto-Submitted',
    'Precedence',
    'X-Mailer',
  ].map((name) => [name.toLowerCase(), name] as const),
);

/** The canonical spelling of a well-known header name, or the name as given. */
export function canonicalHeaderName(name: string): string {
  return CANONICAL.get(name.toLowerCase()) ?? name;
}

/** Builds a headers map from header lines in order (names as written, decoded values). */
export function headersMap(lines: ReadonlyArray<readonly [string, string]>): Record<string, string> {
  const map: Record<string, string> = {};
  for (const [rawName, rawValue] of lines) {
    const name = canonicalHeaderName(rawName.trim());
    if (name.toLowerCase() === 'bcc' || name === '') continue;
    const value = rawValue.replace(/\r?\n[ \t]*/g, ' ').trim();
    map[name] = Object.hasOwn(map, name) ? `${map[name]}\n${value}` : value;
  }
  return map;
}

/** What the headers of a message composed inside the service are made from. */
export interface ComposedHeaderFields {
  messageId: string;
  date: string;
  from: string;
  to: string[];
  cc: string[];
  subject: string;
  inReplyTo?: string | null;
  references?: string | null;
}

/** The headers of a message an agent sends (or of simulated inbound mail given as fields). */
export function composedHeaders(fields: ComposedHeaderFields, extra: Record<string, string> = {}): Record<string, string> {
  const lines: Array<[string, string]> = Object.entries(extra);
  lines.push(['Message-ID', fields.messageId], ['Date', fields.date], ['From', fields.from]);
  if (fields.to.length > 0) lines.push(['To', fields.to.join(', ')]);
  if (fields.cc.length > 0) lines.push(['Cc', fields.cc.join(', ')]);
  lines.push(['Subject', fields.subject]);
  if (fields.inReplyTo) lines.push(['In-Reply-To', fields.inReplyTo]);
  if (fields.references) lines.push(['References', fields.references]);
  lines.push(['MIME-Version', '1.0']);
  // The fields win over extra headers of the same name rather than being joined to them.
  const own = new Set(lines.slice(Object.keys(extra).length).map(([name]) => name.toLowerCase()));
  return headersMap(lines.filter(([name], index) => index >= Object.keys(extra).length || !own.has(canonicalHeaderName(name).toLowerCase())));
}
