import { z } from 'zod';

/** A string of at most `max` characters, counted as Unicode code points (not UTF-16 units). */
export function maxChars(max: number): z.ZodString {
  return z.string().refine((text) => [...text].length <= max, { message: `must be at most ${max} characters` }) as unknown as z.ZodString;
}

/**
 * An integer query or body parameter: accepts a number, or a string of digits from a query
 * string. Out of range answers 400 (DECISIONS.md: `limit` is never clamped).
 */
export function intParam(min: number, max: number) {
  return z.preprocess(
    (value) => (typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value),
    z.number().int().min(min).max(max),
  );
}

/** A URL of at most 2,048 characters whose scheme is one of `protocols` (`'https:'`, ...). */
function urlWith(protocols: string[], message: string): z.ZodString {
  return z
    .string()
    .max(2048)
    .refine((text) => {
      try {
        return protocols.includes(new URL(text).protocol);
      } catch {
        return false;
      }
    }, { message });
}

/** An https URL. */
export const httpsUrl = urlWith(['https:'], 'must be an https URL');

/** An http or https URL (webhook endpoints, call-flow documents, pages to open). */
export const httpUrl = urlWith(['http:', 'https:'], 'must be an http or https URL');

/** An ISO 8601 timestamp as the service writes them. */
export const timestamp = z.string().describe('ISO 8601 timestamp with milliseconds and Z');
