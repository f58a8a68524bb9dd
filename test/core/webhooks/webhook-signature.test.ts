import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../../../src/index.js';
import { parseSignatureHeader, signatureHeader } from '../../../src/core/webhooks/signature.js';

const SECRET = 'whsec_test0123456789';
const BODY = '{"id":"evt_1","type":"invoice.paid","created_at":"2026-01-01T00:00:00.000Z","agent_id":"agt_1","data":{}}';
const T = 1_767_225_600;

describe('webhook signatures', () => {
  it('sign "<t>.<raw body>" with HMAC-SHA256 keyed by the whole whsec_ string', () => {
    const expected = createHmac('sha256', SECRET).update(`${T}.${BODY}`).digest('hex');
    expect(signatureHeader(SECRET, T, BODY)).toBe(`t=${T},v1=${expected}`);
  });

  it('verifyWebhook answers the parsed event for a good signature within the tolerance', () => {
    const header = signatureHeader(SECRET, T, BODY);
    expect(verifyWebhook(SECRET, BODY, header, { now: (T + 299) * 1000 })).toEqual(JSON.parse(BODY));
    expect(verifyWebhook(SECRET, Buffer.from(BODY), header, { now: new Date((T - 299) * 1000) }).id).toBe('evt_1');
  });

  it.each([
    ['a changed body', SECRET, `${BODY} `, signatureHeader(SECRET, T, BODY), T, 'signature_mismatch'],
    ['another secret', 'whsec_other', BODY, signatureHeader(SECRET, T, BODY), T, 'signature_mismatch'],
    ['a signature older than 300 s', SECRET, BODY, signatureHeader(SECRET, T, BODY), T + 301, 'timestamp_out_of_tolerance'],
    ['a signature from the future', SECRET, BODY, signatureHeader(SECRET, T, BODY), T - 301, 'timestamp_out_of_tolerance'],
    ['a missing header', SECRET, BODY, '', T, 'malformed_header'],
    ['a header without v1', SECRET, BODY, `t=${T}`, T, 'malformed_header'],
    ['a re-timed header', SECRET, BODY, signatureHeader(SECRET, T, BODY).replace(`t=${T}`, `t=${T + 1}`), T, 'signature_mismatch'],
  ])('verifyWebhook refuses %s', (_case, secret, body, header, nowSeconds, reason) => {
    let caught: unknown;
    try {
      verifyWebhook(secret, body, header, { now: nowSeconds * 1000 });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(WebhookVerificationError);
    expect((caught as WebhookVerificationError).reason).toBe(reason);
  });

  it('accepts any matching v1 signature of several (secret rotation) and ignores unknown schemes', () => {
    const good = signatureHeader(SECRET, T, BODY).split(',')[1]!;
    const header = `t=${T},v0=abc,v1=${'0'.repeat(64)},${good}`;
    expect(parseSignatureHeader(header)?.signatures).toHaveLength(2);
    expect(verifyWebhook(SECRET, BODY, header, { now: T * 1000 }).type).toBe('invoice.paid');
  });

  it('takes a custom tolerance', () => {
    const header = signatureHeader(SECRET, T, BODY);
    expect(() => verifyWebhook(SECRET, BODY, header, { now: (T + 10) * 1000, toleranceSeconds: 5 })).toThrow(WebhookVerificationError);
  });
});
