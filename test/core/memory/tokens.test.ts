import { get_encoding } from '@dqbd/tiktoken';
import { describe, expect, it } from 'vitest';
import { TokenChunker, countTokens as countWith, exceedsTokens as exceedsWith } from '../../../src/core/memory/tokens.js';
import { TiktokenTokenizer } from '../../../src/providers/tokens/tiktoken-tokenizer.js';

const tokenizer = new TiktokenTokenizer();
const countTokens = (text: string) => countWith(tokenizer, text);
const exceedsTokens = (text: string, max: number) => exceedsWith(tokenizer, text, max);

const reference = get_encoding('cl100k_base');
const refCount = (text: string) => reference.encode_ordinary(text).length;

describe('countTokens', () => {
  it('counts cl100k_base tokens as tiktoken does', () => {
    for (const text of ['hello world', 'héllo 世界 🎉', 'The invoice is due on 2026-03-01.', '']) expect(countTokens(text)).toBe(refCount(text));
  });

  it('counts special-token names as ordinary text', () => {
    expect(countTokens('<|endoftext|>')).toBeGreaterThan(1);
  });

  it('tells whether a text is over a limit, at the boundary', () => {
    const text = `hello${' hello'.repeat(7999)}`;
    expect(refCount(text)).toBe(8000);
    expect(exceedsTokens(text, 8000)).toBe(false);
    expect(exceedsTokens(`${text} hello`, 8000)).toBe(true);
    expect(exceedsTokens('short', 8000)).toBe(false);
  });
});

describe('TokenChunker', () => {
  const sentence = (i: number) => `Sentence number ${i} talks about topic ${i % 17} and ends here. `;
  const longText = Array.from({ length: 2000 }, (_, i) => sentence(i)).join('');

  function chunkAll(text: string, pieces: number, options = { chunkTokens: 100, overlapTokens: 20 }, windowChars = 4096): string[] {
    const chunker = new TokenChunker(tokenizer, options, windowChars);
    const out: string[] = [];
    const size = Math.ceil(text.length / pieces);
    for (let i = 0; i < text.length; i += size) out.push(...chunker.push(text.slice(i, i + size)));
    out.push(...chunker.finish());
    return out;
  }

  it('cuts text into chunks of at most chunkTokens tokens (plus a partial character at the edges)', () => {
    const chunks = chunkAll(longText, 1);
    expect(chunks.length).toBeGreaterThan(10);
    for (const chunk of chunks) expect(refCount(chunk)).toBeLessThanOrEqual(102);
    expect(refCount(chunks[0]!)).toBeGreaterThanOrEqual(98);
  });

  it('overlaps consecutive chunks, so every stretch of text is whole in some chunk', () => {
    const chunks = chunkAll(longText, 1);
    for (let i = 1; i < chunks.length; i++) {
      const tail = chunks[i - 1]!.slice(-40);
      expect(chunks[i]!.includes(tail.slice(0, 20)), `chunk ${i} starts inside the previous one`).toBe(true);
    }
    for (let i = 0; i < 2000; i += 97) expect(chunks.some((chunk) => chunk.includes(sentence(i).trim()))).toBe(true);
  });

  it('covers the whole text from start to end', () => {
    const chunks = chunkAll(longText, 1);
    expect(longText.startsWith(chunks[0]!)).toBe(true);
    expect(longText.endsWith(chunks[chunks.length - 1]!)).toBe(true);
  });

  it('chunks the same text fed in many small pieces into windows as well as in one piece', () => {
    const whole = chunkAll(longText, 1, undefined, 10_000_000);
    const streamed = chunkAll(longText, 300);
    expect(streamed.length).toBeGreaterThanOrEqual(whole.length - 2);
    for (let i = 0; i < 2000; i += 50) expect(streamed.some((chunk) => chunk.includes(sentence(i).trim()))).toBe(true);
    for (const chunk of streamed) expect(refCount(chunk)).toBeLessThanOrEqual(102);
  });

  it('never splits a multi-byte character', () => {
    const text = '世界🎉é '.repeat(3000);
    for (const chunk of chunkAll(text, 7, { chunkTokens: 33, overlapTokens: 5 })) {
      expect(chunk).not.toContain('\uFFFD');
      expect(text.includes(chunk)).toBe(true);
    }
  });

  it('answers nothing for empty or blank text, and one chunk for a short text', () => {
    expect(chunkAll('', 1)).toEqual([]);
    expect(chunkAll('   \n\n  ', 1)).toEqual([]);
    expect(chunkAll('A short note.', 1)).toEqual(['A short note.']);
  });

  it('refuses an overlap as large as the chunk', () => {
    expect(() => new TokenChunker(tokenizer, { chunkTokens: 10, overlapTokens: 10 })).toThrow(RangeError);
  });
});

describe('long runs without spaces', () => {
  it.each([
    ['letters', 'y'],
    ['spaces', ' '],
    ['CJK characters', '世'],
    ['emoji (surrogate pairs)', '🎉'],
  ])('counts a million-character run of %s in bounded time and close to tiktoken', (_what, unit) => {
    const text = unit.repeat(1_000_000 / unit.length);
    const count = countTokens(text);
    expect(count).toBeGreaterThan(0);
    // The exact count of a shorter run is cheap enough to compare with.
    const sample = unit.repeat(2048 / unit.length);
    const exact = refCount(sample);
    expect(Math.abs(countTokens(sample) - exact)).toBeLessThanOrEqual(Math.ceil(sample.length / 128) + 1);
  });

  it('chunks a document made of one huge word without losing text', () => {
    const text = `start ${'y'.repeat(300_000)} end`;
    const chunker = new TokenChunker(tokenizer, { chunkTokens: 512, overlapTokens: 64 });
    const chunks = [...chunker.push(text), ...chunker.finish()];
    expect(chunks[0]!.startsWith('start ')).toBe(true);
    expect(chunks[chunks.length - 1]!.endsWith(' end')).toBe(true);
    for (const chunk of chunks) expect(text.includes(chunk)).toBe(true);
  });
});
