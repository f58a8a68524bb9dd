import type { Embedder } from '../core/ports/embedder.js';
import type { WordVectorTable } from '../core/ports/word-vectors.js';
import { HashingEmbedder, STOP_WORDS, wordsOf } from './hashing-embedder.js';
import { HybridEmbedder } from './hybrid-embedder.js';
import { porterStem } from './porter-stemmer.js';

/**
 * The SIF smoothing constant a: a word of probability p weighs a / (a + p), so "the" (p ≈ 0.03)
 * counts about 0.003 and a rare word almost 1. 1e-4 measured best on the paraphrase set of
 * `npm run bench -- memory-quality` (1e-3 and 3e-5 lose recall); the build script removes the
 * common direction computed with the same constant.
 */
export const SIF_A = 1e-4;

/** Endings tried on a stem to find a known form of an unknown word (`invoic` + `e`, `payabl` + `e`). */
const ENDINGS = ['', 'e', 's', 'es', 'ed', 'ing', 'y', 'er', 'ion', 'ation', 'al', 'ment', 'ly', 'ity', 'ive', 'ize', 'ise'];

/**
 * The row of `word` in `table`; for a word the table lacks, the most frequent known word with the
 * same Porter stem among the stem plus a few common endings (`invoicing` → `invoices`, `payables`
 * → `payable`, `onboarding` → `onboard`); -1 when there is none. A handful of look-ups, no pass
 * over the vocabulary.
 */
export function rowOf(table: WordVectorTable, word: string): number {
  const index = table.indexOf(word);
  if (index >= 0) return index;
  const stem = porterStem(word);
  let best = -1;
  for (const ending of ENDINGS) {
    const candidate = table.indexOf(stem + ending);
    if (candidate >= 0 && (best < 0 || candidate < best) && porterStem(stem + ending) === stem) best = candidate;
  }
  return best;
}

/**
 * A sentence vector by smooth inverse frequency (Arora, Liang and Ma, "A simple but tough-to-beat
 * baseline for sentence embeddings", 2017): the sum of the word vectors of the text's content
 * words (stop words are left out unless nothing else is left), each weighed a / (a + p(word)),
 * with the table's common direction projected out, L2-normalised. A word absent from the table
 * counts through a known form with the same stem ({@link rowOf}), or not at all (names, ids,
 * numbers: the lexical half of the hybrid carries them). Only sums, products,
 * quotients and square roots (exact in IEEE 754) in a fixed order: the same bits everywhere.
 * A text without any known word gives the zero vector.
 */
export function sifVector(table: WordVectorTable, text: string): Float32Array {
  const { dimension, rows, scales, probabilities, common } = table;
  const words = wordsOf(text);
  const content = words.filter((word) => !STOP_WORDS.has(word));
  const sums = new Float64Array(dimension);
  for (const word of content.length > 0 ? content : words) {
    const index = rowOf(table, word);
    if (index < 0) continue;
    const factor = (SIF_A / (SIF_A + probabilities[index]!)) * scales[index]!;
    const at = index * dimension;
    for (let d = 0; d < dimension; d++) sums[d]! += factor * rows[at + d]!;
  }
  let projection = 0;
  for (let d = 0; d < dimension; d++) projection += sums[d]! * common[d]!;
  let norm = 0;
  for (let d = 0; d < dimension; d++) {
    sums[d]! -= projection * common[d]!;
    norm += sums[d]! * sums[d]!;
  }
  const vector = new Float32Array(dimension);
  if (norm === 0) return vector;
  const scale = 1 / Math.sqrt(norm);
  for (let d = 0; d < dimension; d++) vector[d] = sums[d]! * scale;
  return vector;
}

/**
 * Semantic embedder over pretrained word vectors (GloVe, through the compact table
 * `data/word-vectors-en-100k.bin`): texts that say the same thing in other words get close
 * vectors ("feline companion" and "my cat"). Deterministic and local. The table is loaded on first
 * use through `load`, which the runtime memoises per process.
 */
export class WordVectorEmbedder implements Embedder {
  readonly model: string;
  private table: Promise<WordVectorTable> | undefined;

  /**
   * @param load reads the table (once: the first embed calls it, later ones reuse its answer)
   * @param tableName names the table in {@link model}, so vectors of another table are re-embedded
   */
  constructor(
    private readonly load: () => Promise<WordVectorTable>,
    tableName = 'glove6b-100k-int8',
  ) {
    this.model = `sif-v1:${tableName}/100`;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.table ??= this.load();
    const table = await this.table;
    return texts.map((text) => sifVector(table, text));
  }
}

/** Share of the word-vector cosine in {@link createWordVectorEmbedder}'s similarity (measured: see docs/memory.md). */
export const WORD_VECTOR_SEMANTIC_WEIGHT = 0.8;

/**
 * Calibration of {@link createWordVectorEmbedder}'s score: `[combined cosine, score]` points,
 * interpolated linearly. Measured on `npm run bench -- memory-quality`: a paraphrase that shares
 * no word with its memory has a median cosine of 0.45 (→ 0.81), one that shares words 0.67
 * (→ 0.89); unrelated pairs have a median of 0.06 (→ 0.11) and a 90th percentile of 0.24 (→ 0.43);
 * a memory searched by its own text has 1 (→ 1). Negative cosines score 0.
 */
export const WORD_VECTOR_CALIBRATION: ReadonlyArray<readonly [number, number]> = [
  [0, 0],
  [0.25, 0.45],
  [0.42, 0.8],
  [1, 1],
];

/**
 * The fast memory embedder (`memory: { embedder: 'word-vectors' }`): semantic word vectors
 * ({@link WordVectorEmbedder}) blended with the lexical {@link HashingEmbedder} features, scores
 * calibrated by {@link WORD_VECTOR_CALIBRATION}. About 0.05 ms a sentence, against 10 ms for the
 * default sentence encoder, and less accurate on paraphrases (docs/memory.md).
 * @param load reads the word-vector table (the runtime passes the shipped table's loader)
 */
export function createWordVectorEmbedder(load: () => Promise<WordVectorTable>): HybridEmbedder {
  return new HybridEmbedder(new WordVectorEmbedder(load), new HashingEmbedder(), { semanticWeight: WORD_VECTOR_SEMANTIC_WEIGHT, calibration: WORD_VECTOR_CALIBRATION });
}
