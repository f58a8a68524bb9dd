const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decodes one line of base64 (RFC 4954: `=` alone is the empty string); null when it is not base64. */
export function decodeBase64Line(line: string): string | null {
  if (line === '=') return '';
  return BASE64.test(line) ? Buffer.from(line, 'base64').toString('utf8') : null;
}

/** User name and password from an `AUTH PLAIN` response (RFC 4616). */
export interface PlainCredentials {
  user: string;
  pass: string;
}

/**
 * Takes apart the decoded `AUTH PLAIN` response `authzid NUL authcid NUL passwd`. Answers null
 * when it is malformed, or when it asks to act as someone other than the user who authenticates.
 */
export function parsePlainResponse(decoded: string): PlainCredentials | null {
  const parts = decoded.split('\0');
  if (parts.length !== 3) return null;
  const [authzid, user, pass] = parts as [string, string, string];
  return authzid === '' || authzid === user ? { user, pass } : null;
}
