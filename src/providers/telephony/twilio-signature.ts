import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Twilio's request signature (`X-Twilio-Signature`): Base64 of the HMAC-SHA1, keyed with the
 * account's auth token, of the full URL Twilio requested followed by every POST parameter's name
 * and value, sorted by name (values of a repeated name in the order they came).
 */
export function twilioSignature(authToken: string, url: string, params: Iterable<[string, string]>): string {
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const sorted = [...params].sort(([nameA, valueA], [nameB, valueB]) => order(nameA, nameB) || order(valueA, valueB));
  let data = url;
  let previous: [string, string] | undefined;
  for (const [name, value] of sorted) {
    // Twilio signs each distinct name and value once.
    if (!previous || previous[0] !== name || previous[1] !== value) data += name + value;
    previous = [name, value];
  }
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

/** Whether `signature` is Twilio's signature of this request (compared in constant time). */
export function verifyTwilioSignature(authToken: string, url: string, params: Iterable<[string, string]>, signature: string | null): boolean {
  if (!signature) return false;
  const expected = Buffer.from(twilioSignature(authToken, url, params));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
