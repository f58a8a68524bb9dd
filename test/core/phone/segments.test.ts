import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GSM7_BASIC_CHARS, GSM7_EXTENSION_CHARS, gsm7Septets } from '../../../src/core/phone/gsm7.js';
import { smsSegments } from '../../../src/core/phone/segments.js';
import { longestGrapheme, twilioSegments } from './twilio-segments-reference.js';

const gsm = (n: number, char = 'a') => char.repeat(n);

describe('smsSegments', () => {
  it('has the 127 basic characters of GSM 03.38 (the escape aside) and the 10 of the extension table', () => {
    expect(new Set(GSM7_BASIC_CHARS).size).toBe(127);
    expect(GSM7_EXTENSION_CHARS.join('')).toBe('\f^{}\\[~]|€');
    for (const char of GSM7_EXTENSION_CHARS) expect(gsm7Septets(char.charCodeAt(0))).toBe(2);
  });

  it('fits 160 GSM-7 characters in one message and splits 161 into two parts of at most 153', () => {
    expect(smsSegments(gsm(160))).toEqual({ encoding: 'GSM-7', num_segments: 1 });
    expect(smsSegments(gsm(161))).toEqual({ encoding: 'GSM-7', num_segments: 2 });
    expect(smsSegments(gsm(306))).toEqual({ encoding: 'GSM-7', num_segments: 2 });
    expect(smsSegments(gsm(307))).toEqual({ encoding: 'GSM-7', num_segments: 3 });
    expect(smsSegments(gsm(1600))).toEqual({ encoding: 'GSM-7', num_segments: 11 });
  });

  it('counts extension characters as two septets and never splits one between parts', () => {
    expect(smsSegments(gsm(80, '€'))).toEqual({ encoding: 'GSM-7', num_segments: 1 });
    expect(smsSegments(gsm(81, '€'))).toEqual({ encoding: 'GSM-7', num_segments: 2 });
    expect(smsSegments(gsm(159) + '{')).toEqual({ encoding: 'GSM-7', num_segments: 2 });
    // 152 septets, then a 2-septet character that would straddle the 153rd: it starts part two.
    expect(smsSegments(gsm(152) + '[' + gsm(152) + '[')).toEqual({ encoding: 'GSM-7', num_segments: 3 });
    expect(smsSegments(gsm(151) + '[' + gsm(151) + '[')).toEqual({ encoding: 'GSM-7', num_segments: 2 });
  });

  it('switches to UCS-2 for any character outside GSM-7, with 70 units alone and 67 per part', () => {
    expect(smsSegments('ç')).toEqual({ encoding: 'UCS-2', num_segments: 1 });
    expect(smsSegments('ç' + gsm(69))).toEqual({ encoding: 'UCS-2', num_segments: 1 });
    expect(smsSegments('ç' + gsm(70))).toEqual({ encoding: 'UCS-2', num_segments: 2 });
    expect(smsSegments('ç' + gsm(133))).toEqual({ encoding: 'UCS-2', num_segments: 2 });
    expect(smsSegments('ç' + gsm(134))).toEqual({ encoding: 'UCS-2', num_segments: 3 });
    // Extension characters are one UTF-16 unit in UCS-2.
    expect(smsSegments('ç' + gsm(69, '€'))).toEqual({ encoding: 'UCS-2', num_segments: 1 });
  });

  it('counts a surrogate pair as two units and never splits it between parts', () => {
    expect(smsSegments('😀'.repeat(35))).toEqual({ encoding: 'UCS-2', num_segments: 1 });
    expect(smsSegments('😀'.repeat(36))).toEqual({ encoding: 'UCS-2', num_segments: 2 });
    // 66 units, then an emoji whose pair would straddle the 67th unit: it moves to part two.
    expect(smsSegments('ç' + gsm(65) + '😀' + gsm(65) + '😀')).toEqual({ encoding: 'UCS-2', num_segments: 3 });
    expect(smsSegments('ç' + gsm(64) + '😀' + gsm(65) + '😀')).toEqual({ encoding: 'UCS-2', num_segments: 2 });
  });

  it('keeps a grapheme cluster together, as Twilio does', () => {
    const family = '👨‍👩‍👧'; // 8 units joined by zero-width joiners
    expect(smsSegments('ç' + gsm(62) + family).num_segments).toBe(2);
    expect(smsSegments('ç' + gsm(62) + family + gsm(64)).num_segments).toBe(3);
  });

  it("agrees with Twilio's segment calculator on arbitrary text (property)", () => {
    const pieces = [...GSM7_BASIC_CHARS, ...GSM7_EXTENSION_CHARS, '\r\n', 'ç', 'ê', 'ÿ', 'ł', '中', '文', 'Ж', '😀', '🚀', '👍🏽', '👨‍👩‍👧', '🇩🇪', 'e\u0301', '\u0301', '\u200d', 'ﬁ', '\u00a0'];
    const gsmPieces = [...GSM7_BASIC_CHARS, ...GSM7_EXTENSION_CHARS, '\r\n'];
    const text = (pool: string[], max: number) => fc.array(fc.constantFrom(...pool), { maxLength: max, size: 'max' }).map((parts) => parts.join(''));
    const mostlyGsm = fc.tuple(text(gsmPieces, 400), fc.option(fc.constantFrom(...pieces)), fc.nat(400)).map(([body, extra, at]) => (extra === null ? body : body.slice(0, at) + extra + body.slice(at)));
    fc.assert(
      fc.property(fc.oneof(text(pieces, 300), text(gsmPieces, 1600), mostlyGsm, fc.string({ unit: 'grapheme', maxLength: 200, size: 'max' })), (message) => {
        fc.pre(message.length > 0 && longestGrapheme(message) <= 67);
        const ours = smsSegments(message);
        const theirs = twilioSegments(message);
        expect(ours).toEqual({ encoding: theirs.encoding, num_segments: theirs.segments });
      }),
      { numRuns: 1000 },
    );
  });
});
