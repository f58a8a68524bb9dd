import type { Embedder } from '../core/ports/embedder.js';
import { porterStem } from './porter-stemmer.js';

/**
 * Common English words that carry no topic; they are left out so two texts are not found similar
 * for sharing "the" and "of".
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by can ' +
    'could did do does doing down during each few for from further had has have having he her here hers herself him himself his ' +
    'how i if in into is it its itself just me more most my myself no nor not now of off on once only or other our ours ' +
    'ourselves out over own same she should so some such than that the their theirs them themselves then there these they this ' +
    'those through to too under until up very was we were what when where which while who whom why will with would you your ' +
    'yours yourself yourselves s t d ll m re ve'
  ).split(' '),
);

/** Weight of a word's stem, of each of its character trigrams, and of a pair of adjacent stems, by feature prefix. */
const WEIGHTS: Readonly<Record<string, number>> = { w: 1, g: 0.45, b: 0.5, c: 1 };

/** The default dimension: the size of common small sentence-embedding models. */
export const HASHING_EMBEDDER_DIMENSION = 384;

const WORD = /[\p{L}\p{N}]+/gu;

/** FNV-1a over UTF-16 code units, finished with MurmurHash3's avalanche step: a stable 32-bit hash. */
function hash32(text: string, seed: number): number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The lower-case words of a text, NFKC-normalised so look-alike forms meet. */
export function wordsOf(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().match(WORD) ?? [];
}

/**
 * The features of a text with their counts: stems of its content words (`w:`; word forms meet:
 * `invoices`, `invoicing` → `invoic`), character trigrams of each word (`g:`; spelling variants
 * and forms the stemmer misses still overlap), and pairs of adjacent stems (`b:`; phrases rank
 * above scattered words).
 */
export function featuresOf(text: string): Map<string, number> {
  const features = new Map<string, number>();
  const add = (feature: string) => features.set(feature, (features.get(feature) ?? 0) + 1);
  const words = wordsOf(text);
  const content = words.filter((word) => !STOP_WORDS.has(word));
  // A text made only of stop words ("to be or not to be") still gets a vector.
  const kept = content.length > 0 ? content : words;
  let previous: string | undefined;
  for (const word of kept) {
    const stem = porterStem(word);
    add(`w:${stem}`);
    const padded = `<${word}>`;
    for (let i = 0; i + 3 <= padded.length; i++) add(`g:${padded.slice(i, i + 3)}`);
    if (previous !== undefined) add(`b:${previous} ${stem}`);
    previous = stem;
  }
  // No words at all (only symbols or emoji): the characters themselves.
  if (kept.length === 0) {
    const chars = [...text.normalize('NFKC')].filter((ch) => ch.trim() !== '');
    for (const ch of chars) add(`c:${ch}`);
  }
  return features;
}

/**
 * Embeds a text by feature hashing: each feature adds its weight, with a hashed sign, to a hashed
 * coordinate. Repeated features grow with the square root of their count, so one word said ten
 * times does not drown the rest. The result is L2-normalised. Only integer arithmetic, sums,
 * products and square roots are used (all exactly specified by IEEE 754), so the vector is the
 * same bit for bit on every machine.
 */
export function hashingVector(text: string, dimension: number = HASHING_EMBEDDER_DIMENSION): Float32Array {
  const sums = new Float64Array(dimension);
  for (const [feature, count] of featuresOf(text)) {
    const h = hash32(feature, 0);
    const sign = hash32(feature, 0x5bd1e995) & 1 ? 1 : -1;
    sums[h % dimension]! += sign * WEIGHTS[feature[0]!]! * Math.sqrt(count);
  }
  let norm = 0;
  for (let i = 0; i < dimension; i++) norm += sums[i]! * sums[i]!;
  const vector = new Float32Array(dimension);
  if (norm === 0) return vector;
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < dimension; i++) vector[i] = sums[i]! * scale;
  return vector;
}

/**
 * The default embedder: deterministic, local, no model and no network. It stands in for a real
 * embedding model and ranks texts that share words and word forms above unrelated ones; it does
 * not know synonyms ("car" and "automobile" are unrelated to it). Swap in a real model with
 * `providers: { embedder: new OpenAICompatibleEmbedder(...) }`.
 */
export class HashingEmbedder implements Embedder {
  readonly model: string;

  constructor(readonly dimension: number = HASHING_EMBEDDER_DIMENSION) {
    if (!Number.isInteger(dimension) || dimension < 8) throw new RangeError('dimension must be an integer of at least 8');
    this.model = `hashing-porter-v1/${dimension}`;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((text) => hashingVector(text, this.dimension));
  }
}
