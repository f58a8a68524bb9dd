/**
 * An independent re-statement of Twilio's published segment calculator (the algorithm of the
 * `sms-segments-calculator` package: EncodedChar, Segment with a 1,120-bit payload, a 6-octet
 * user data header added to the first segment once a second one is needed, moving the characters
 * that no longer fit), written for the property test that checks `smsSegments` against it. The
 * GSM 03.38 table here is spelled as code points, independently of src/core/phone/gsm7.ts.
 * Graphemes come from Intl.Segmenter where Twilio uses the grapheme-splitter package.
 */

/** Unicode code point → GSM 03.38 code units (one septet, or the escape and one for the extension table). */
const UNICODE_TO_GSM = new Map<number, number[]>();
const basic: Array<[number, number]> = [
  [0x40, 0x00],
  [0xa3, 0x01],
  [0x24, 0x02],
  [0xa5, 0x03],
  [0xe8, 0x04],
  [0xe9, 0x05],
  [0xf9, 0x06],
  [0xec, 0x07],
  [0xf2, 0x08],
  [0xc7, 0x09],
  [0x0a, 0x0a],
  [0xd8, 0x0b],
  [0xf8, 0x0c],
  [0x0d, 0x0d],
  [0xc5, 0x0e],
  [0xe5, 0x0f],
  [0x394, 0x10],
  [0x5f, 0x11],
  [0x3a6, 0x12],
  [0x393, 0x13],
  [0x39b, 0x14],
  [0x3a9, 0x15],
  [0x3a0, 0x16],
  [0x3a8, 0x17],
  [0x3a3, 0x18],
  [0x398, 0x19],
  [0x39e, 0x1a],
  [0xc6, 0x1c],
  [0xe6, 0x1d],
  [0xdf, 0x1e],
  [0xc9, 0x1f],
  [0x20, 0x20],
  [0x21, 0x21],
  [0x22, 0x22],
  [0x23, 0x23],
  [0xa4, 0x24],
  [0xa1, 0x40],
  [0xc4, 0x5b],
  [0xd6, 0x5c],
  [0xd1, 0x5d],
  [0xdc, 0x5e],
  [0xa7, 0x5f],
  [0xbf, 0x60],
  [0xe4, 0x7b],
  [0xf6, 0x7c],
  [0xf1, 0x7d],
  [0xfc, 0x7e],
  [0xe0, 0x7f],
];
for (let code = 0x25; code <= 0x3f; code++) basic.push([code, code]);
for (let code = 0x41; code <= 0x5a; code++) basic.push([code, code]);
for (let code = 0x61; code <= 0x7a; code++) basic.push([code, code]);
for (const [unicode, gsm] of basic) UNICODE_TO_GSM.set(unicode, [gsm]);
const extension: Array<[number, number]> = [
  [0x0c, 0x0a],
  [0x5e, 0x14],
  [0x7b, 0x28],
  [0x7d, 0x29],
  [0x5c, 0x2f],
  [0x5b, 0x3c],
  [0x7e, 0x3d],
  [0x5d, 0x3e],
  [0x7c, 0x40],
  [0x20ac, 0x65],
];
for (const [unicode, gsm] of extension) UNICODE_TO_GSM.set(unicode, [0x1b, gsm]);

type Encoding = 'GSM-7' | 'UCS-2';

class EncodedChar {
  readonly isGSM7: boolean;
  readonly codeUnits: number[];
  constructor(
    readonly raw: string,
    readonly encoding: Encoding,
  ) {
    this.isGSM7 = raw.length === 1 && UNICODE_TO_GSM.has(raw.charCodeAt(0));
    this.codeUnits = this.isGSM7 ? UNICODE_TO_GSM.get(raw.charCodeAt(0))! : [...Array(raw.length).keys()].map((i) => raw.charCodeAt(i));
  }
  sizeInBits(): number {
    if (this.encoding === 'UCS-2' && this.isGSM7) return 16;
    return (this.encoding === 'UCS-2' ? 16 : 7) * this.codeUnits.length;
  }
}

/** One octet of the concatenation header. */
class UserDataHeader {
  sizeInBits(): number {
    return 8;
  }
}

class Segment {
  readonly items: Array<EncodedChar | UserDataHeader> = [];
  hasUserDataHeader: boolean;
  constructor(withHeader = false) {
    this.hasUserDataHeader = withHeader;
    if (withHeader) for (let i = 0; i < 6; i++) this.items.push(new UserDataHeader());
  }
  sizeInBits(): number {
    return this.items.reduce((sum, item) => sum + item.sizeInBits(), 0);
  }
  freeSizeInBits(): number {
    return 1120 - this.sizeInBits();
  }
  push(char: EncodedChar): void {
    this.items.push(char);
  }
  /** Adds the header and answers the characters that no longer fit, in order. */
  addHeader(): EncodedChar[] {
    if (this.hasUserDataHeader) return [];
    this.hasUserDataHeader = true;
    const removed: EncodedChar[] = [];
    for (let i = 0; i < 6; i++) this.items.unshift(new UserDataHeader());
    while (this.freeSizeInBits() < 0) removed.unshift(this.items.pop() as EncodedChar);
    return removed;
  }
}

const splitter = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** Twilio's segmentation of `message`: its encoding and segment count. */
export function twilioSegments(message: string): { encoding: Encoding; segments: number } {
  const graphemes = [...splitter.segment(message)].flatMap(({ segment }) => (segment === '\r\n' ? segment.split('') : [segment]));
  const hasUcs = graphemes.some((grapheme) => grapheme.length >= 2 || !UNICODE_TO_GSM.has(grapheme.charCodeAt(0)));
  const encoding: Encoding = hasUcs ? 'UCS-2' : 'GSM-7';
  const segments: Segment[] = [new Segment()];
  let current = segments[0]!;
  for (const char of graphemes.map((grapheme) => new EncodedChar(grapheme, encoding))) {
    if (current.freeSizeInBits() < char.sizeInBits()) {
      const next = new Segment(true);
      segments.push(next);
      for (const moved of current.addHeader()) next.push(moved);
      current = next;
    }
    current.push(char);
  }
  return { encoding, segments: segments.length };
}

/** The longest grapheme of a message, in UTF-16 code units (the property's precondition). */
export function longestGrapheme(message: string): number {
  let longest = 0;
  for (const { segment } of splitter.segment(message)) longest = Math.max(longest, segment.length);
  return longest;
}
