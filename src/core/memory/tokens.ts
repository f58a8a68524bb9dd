import type { Tokenizer } from '../ports/tokenizer.js';

/** Longest stretch of only non-space (or only space) characters encoded in one piece. */
const MAX_RUN = 128;
const LONG_RUN = /\S{129,}|\s{129,}/g;

/**
 * cl100k_base tokens of a text. tiktoken's byte-pair merge takes time quadratic in the length of
 * one pre-tokenised piece, so a long run without spaces ("yyyy…", a DNA string, 20,000 spaces)
 * would take minutes; such runs are encoded in pieces of at most 128 characters. Text without
 * such runs, i.e. all ordinary text, is encoded exactly as tiktoken does; a long run may differ
 * from tiktoken's count by about one token per 128 characters. Every token still decodes to the
 * text's own bytes, in order.
 */
function encode(tokenizer: Tokenizer, text: string): Uint32Array {
  LONG_RUN.lastIndex = 0;
  const long = LONG_RUN.test(text);
  // matchAll below starts from the pattern's lastIndex, which test() just moved.
  LONG_RUN.lastIndex = 0;
  if (!long) return tokenizer.encodeOrdinary(text);
  const parts: Uint32Array[] = [];
  let from = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    const end = match.index + match[0].length;
    for (let cut = match.index + MAX_RUN; cut < end; cut += MAX_RUN) {
      // Never between the two halves of a surrogate pair.
      const at = (text.charCodeAt(cut) & 0xfc00) === 0xdc00 ? cut - 1 : cut;
      if (at <= from) continue;
      parts.push(tokenizer.encodeOrdinary(text.slice(from, at)));
      from = at;
    }
  }
  parts.push(tokenizer.encodeOrdinary(text.slice(from)));
  const tokens = new Uint32Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    tokens.set(part, offset);
    offset += part.length;
  }
  return tokens;
}

/**
 * Tokens of a text under the tokenizer's encoding (cl100k_base by default). Special token names
 * such as `<|endoftext|>` count as ordinary text, as they would in a user's message.
 */
export function countTokens(tokenizer: Tokenizer, text: string): number {
  return encode(tokenizer, text).length;
}

/**
 * Whether a text has more than `max` tokens. A token is at least one UTF-8 byte, so texts of at
 * most `max` bytes are answered without encoding them.
 */
export function exceedsTokens(tokenizer: Tokenizer, text: string, max: number): boolean {
  if (Buffer.byteLength(text, 'utf8') <= max) return false;
  return countTokens(tokenizer, text) > max;
}

/** How documents are cut into memories. */
export interface ChunkOptions {
  /** Tokens per chunk (cl100k_base). */
  chunkTokens: number;
  /** Tokens each chunk shares with the one before it, so a sentence cut in two is whole in one. */
  overlapTokens: number;
}

/** Moves a byte offset back to the first byte of the UTF-8 character it falls in. */
function charStart(bytes: Uint8Array, offset: number): number {
  while (offset > 0 && offset < bytes.length && (bytes[offset]! & 0xc0) === 0x80) offset--;
  return offset;
}

/** Moves a byte offset forward past the UTF-8 character it falls in. */
function charEnd(bytes: Uint8Array, offset: number): number {
  while (offset < bytes.length && (bytes[offset]! & 0xc0) === 0x80) offset++;
  return offset;
}

/**
 * Cuts a stream of text into chunks of `chunkTokens` cl100k_base tokens, each overlapping the one
 * before by `overlapTokens`. Text is encoded a window at a time, so a document of any length is
 * chunked in bounded memory. Chunk text is cut from the original bytes at token boundaries
 * (widened to whole characters), so it is exactly the document's text, never re-decoded.
 */
export class TokenChunker {
  private pending = '';

  constructor(
    private readonly tokenizer: Tokenizer,
    private readonly options: ChunkOptions,
    private readonly windowChars = 256 * 1024,
  ) {
    if (!(options.chunkTokens > 0 && options.overlapTokens >= 0 && options.overlapTokens < options.chunkTokens)) {
      throw new RangeError('chunkTokens must be positive and overlapTokens smaller than it');
    }
  }

  /** Adds text and answers the chunks it completed. */
  push(text: string): string[] {
    this.pending += text;
    return this.pending.length >= this.windowChars ? this.drain(false) : [];
  }

  /** Answers the chunks of whatever text is left. */
  finish(): string[] {
    return this.drain(true);
  }

  private drain(final: boolean): string[] {
    const text = this.pending;
    this.pending = '';
    if (!text) return [];
    const tokens = encode(this.tokenizer, text);
    const bytes = Buffer.from(text, 'utf8');
    const { chunkTokens: size, overlapTokens: overlap } = this.options;
    const stride = size - overlap;
    // Unless this is the end, leave the last stretch for the next window: the window's edge may
    // have cut a word, and a partial last chunk is better filled with the text that follows.
    const guard = final ? 0 : 16;
    const spans: Array<[number, number]> = [];
    let start = 0;
    while (final ? start < tokens.length : start + size + guard <= tokens.length) {
      const end = Math.min(start + size, tokens.length);
      spans.push([start, end]);
      if (end === tokens.length) {
        start = end;
        break;
      }
      start += stride;
    }
    const offsets = this.byteOffsets(tokens, [...spans.flat(), start]);
    const chunks: string[] = [];
    for (const [from, to] of spans) {
      const chunk = bytes.toString('utf8', charStart(bytes, offsets.get(from)!), charEnd(bytes, offsets.get(to)!));
      if (chunk.trim() !== '') chunks.push(chunk);
    }
    if (!final && start < tokens.length) this.pending = bytes.toString('utf8', charStart(bytes, offsets.get(start)!));
    return chunks;
  }

  /** Byte offsets of the given token positions, decoding each stretch between them once. */
  private byteOffsets(tokens: Uint32Array, positions: number[]): Map<number, number> {
    const sorted = [...new Set(positions)].sort((a, b) => a - b);
    const offsets = new Map<number, number>();
    let position = 0;
    let offset = 0;
    for (const target of sorted) {
      if (target > position) offset += this.tokenizer.decodeBytes(tokens.subarray(position, target)).length;
      position = target;
      offsets.set(target, offset);
    }
    return offsets;
  }
}
