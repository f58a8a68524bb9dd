import { REPLY } from './replies.js';

/** Why the parameters of a `MAIL FROM` are refused, and whether that counts as a client error. */
export interface ParamsRefusal {
  reply: string;
  /** A malformed or unknown parameter (counted against the session's error cap), not a limit. */
  error: boolean;
}

/**
 * Checks the ESMTP parameters of `MAIL FROM`: `SIZE=n` (refused 552 above `maxBytes`),
 * `BODY=7BIT|8BITMIME`, `SMTPUTF8`, and `AUTH=` (RFC 4954, accepted and ignored). Anything
 * else is 555. Answers null when they are all acceptable.
 */
export function checkMailParams(params: ReadonlyMap<string, string | true>, maxBytes: number, tooBig: string): ParamsRefusal | null {
  for (const [key, value] of params) {
    if (key === 'SIZE') {
      if (value === true || !/^\d{1,15}$/.test(value)) return { reply: REPLY.mailSyntax, error: true };
      if (Number(value) > maxBytes) return { reply: tooBig, error: false };
    } else if (key === 'BODY') {
      if (value === true || !/^(7BIT|8BITMIME)$/i.test(value)) return { reply: REPLY.badBodyType, error: true };
    } else if (key !== 'SMTPUTF8' && key !== 'AUTH') return { reply: REPLY.badParameter, error: true };
  }
  return null;
}
