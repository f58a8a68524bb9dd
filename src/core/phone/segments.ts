import { gsm7Septets } from './gsm7.js';

/** How an SMS body travels: GSM-7 septets, or UCS-2 (UTF-16 code units). */
export type SmsEncoding = 'GSM-7' | 'UCS-2';

/** The encoding and part count of an SMS body. */
export interface SmsSegments {
  encoding: SmsEncoding;
  num_segments: number;
}

/** Units one message holds alone, and per part of a concatenated message (the 6-octet UDH takes the rest). */
const CAPACITY: Record<SmsEncoding, { single: number; part: number }> = {
  'GSM-7': { single: 160, part: 153 },
  'UCS-2': { single: 70, part: 67 },
};

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * The encoding and number of parts of an SMS body, by the rules of Twilio's segment calculator:
 * GSM-7 when every character is in the GSM 03.38 basic or extension table (extension characters
 * cost two septets), else UCS-2 counted in UTF-16 code units. One message holds 160 septets or 70
 * units; past that every part holds 153 or 67, and no character is split between parts: an
 * extension character's two septets stay together, and in UCS-2 a whole grapheme cluster (so a
 * surrogate pair always) moves to the next part when it does not fit. CR LF counts as two
 * characters. A cluster longer than a part (only contrived text has one) is cut between code
 * points, where Twilio's calculator would leave an over-full part.
 */
export function smsSegments(text: string): SmsSegments {
  const gsm: number[] = [];
  let gsmOnly = true;
  for (let i = 0; i < text.length; i++) {
    const septets = gsm7Septets(text.charCodeAt(i));
    if (septets === 0) {
      gsmOnly = false;
      break;
    }
    gsm.push(septets);
  }
  if (gsmOnly) return { encoding: 'GSM-7', num_segments: pack(gsm, CAPACITY['GSM-7']) };
  return { encoding: 'UCS-2', num_segments: pack(ucs2Units(text), CAPACITY['UCS-2']) };
}

/** Sizes in UTF-16 code units of the indivisible pieces of a UCS-2 message, in order. */
function ucs2Units(text: string): number[] {
  const sizes: number[] = [];
  for (const { segment } of graphemes.segment(text)) {
    if (segment.length <= CAPACITY['UCS-2'].part && segment !== '\r\n') {
      sizes.push(segment.length);
      continue;
    }
    for (const codePoint of segment) sizes.push(codePoint.length);
  }
  return sizes;
}

/** Parts needed for pieces of these sizes: one if they fit a single message, else a greedy fill of parts. */
function pack(sizes: readonly number[], capacity: { single: number; part: number }): number {
  let total = 0;
  for (const size of sizes) total += size;
  if (total <= capacity.single) return 1;
  let parts = 1;
  let used = 0;
  for (const size of sizes) {
    if (used + size > capacity.part) {
      parts++;
      used = 0;
    }
    used += size;
  }
  return parts;
}
