import { createHmac, timingSafeEqual } from 'node:crypto';

/** A parsed `Agent-Signature` header: the signing time and every `v1` signature it carries. */
export interface ParsedSignature {
  timestamp: number;
  signatures: string[];
}

/** Hex HMAC-SHA256 of `"<t>.<raw body>"` keyed with the whole `whsec_…` secret. */
export function signatureOf(secret: string, timestampSeconds: number, rawBody: string | Uint8Array): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(`${timestampSeconds}.`);
  hmac.update(rawBody);
  return hmac.digest('hex');
}

/** The `Agent-Signature` header value of a delivery signed at `timestampSeconds`. */
export function signatureHeader(secret: string, timestampSeconds: number, rawBody: string | Uint8Array): string {
  return `t=${timestampSeconds},v1=${signatureOf(secret, timestampSeconds, rawBody)}`;
}

/**
 * Reads `t=<seconds>,v1=<hex>[,v1=<hex>...]`; unknown schemes are ignored (so a future scheme can
 * be added beside v1). Undefined when there is no timestamp or no v1 signature.
 */
export function parseSignatureHeader(header: string): ParsedSignature | undefined {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value.toLowerCase());
  }
  return timestamp === undefined || signatures.length === 0 ? undefined : { timestamp, signatures };
}

/** Why a delivery failed verification. */
export type SignatureFailure = 'malformed_header' | 'timestamp_out_of_tolerance' | 'signature_mismatch';

/** Raised by webhook verification; `reason` says which check failed. */
export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: SignatureFailure,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/**
 * Checks a delivery's signature against `secret` at `nowSeconds` (constant-time comparison) and
 * answers the parsed event.
 * @throws WebhookVerificationError when the header is malformed, too old or too new, or no
 *   signature matches; SyntaxError when a correctly signed body is not JSON
 */
export function verifySignedPayload(secret: string, rawBody: string | Uint8Array, header: string, toleranceSeconds: number, nowSeconds: number): unknown {
  const parsed = parseSignatureHeader(header);
  if (!parsed) throw new WebhookVerificationError('malformed_header', 'Agent-Signature must look like t=<unix seconds>,v1=<hex>');
  if (Math.abs(nowSeconds - parsed.timestamp) > toleranceSeconds) {
    throw new WebhookVerificationError('timestamp_out_of_tolerance', `the signature's timestamp is more than ${toleranceSeconds} s away from now`);
  }
  const expected = Buffer.from(signatureOf(secret, parsed.timestamp, rawBody), 'hex');
  const matches = parsed.signatures.some((candidate) => {
    const given = Buffer.from(candidate, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('signature_mismatch', 'no signature matches the body and secret');
  return JSON.parse(typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8'));
}
