import type { MessageAuthentication } from './email.schema.js';

/**
 * What the inbound edge found out about who sent a message (SPF, DKIM, DMARC), handed with its
 * bytes to {@link MailInbound.deliverRaw}: the verdict kept on the message and the value of the
 * `Authentication-Results` header the service writes (RFC 8601, authserv-id first).
 */
export interface InboundAuthentication {
  verdict: MessageAuthentication;
  /** The header's value, `<authserv-id>; spf=pass ...; dkim=...; dmarc=...`. */
  resultsHeader: string;
}

/** The verdict of mail between agents of the service: it never left, so nothing can have forged it. */
export function internalAuthentication(serviceDomain: string): MessageAuthentication {
  return { spf: 'pass', dkim: [], dmarc: 'pass', from_domain: serviceDomain.toLowerCase() };
}

/** The authserv-id of an `Authentication-Results` value: its first token, before `;` or a comment. */
function authservIdOf(value: string): string {
  return (
    (value.split(';', 1)[0] ?? '')
      .replace(/\([^)]*\)/g, ' ')
      .trim()
      .split(/\s+/)[0]
      ?.toLowerCase() ?? ''
  );
}

const RESULTS = 'Authentication-Results';

/**
 * The headers of an incoming message as the service keeps them: every `Authentication-Results` that
 * claims the service's own authserv-id is removed (RFC 8601 §5: only the service may write those,
 * so one from outside is a forgery), those of other hosts are kept, and the service's own header,
 * when it checked the message, comes first.
 */
export function withOwnResults(headers: Record<string, string>, serviceDomain: string, resultsHeader: string | null): Record<string, string> {
  const key = Object.keys(headers).find((name) => name.toLowerCase() === RESULTS.toLowerCase());
  const own = serviceDomain.toLowerCase();
  const kept = key === undefined ? [] : headers[key]!.split('\n').filter((value) => authservIdOf(value) !== own);
  const values = resultsHeader === null ? kept : [resultsHeader, ...kept];
  if (key === undefined && values.length === 0) return headers;
  const result: Record<string, string> = {};
  if (values.length > 0) result[RESULTS] = values.join('\n');
  for (const [name, value] of Object.entries(headers)) if (name !== key) result[name] = value;
  return result;
}
