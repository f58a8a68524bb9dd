import { HashingEmbedder } from '../sim/hashing-embedder.js';
import { HybridEmbedder } from '../sim/hybrid-embedder.js';
import { SentenceEncoderEmbedder } from '../providers/embeddings/sentence-encoder/sentence-encoder-embedder.js';

/** Share of the sentence encoder's cosine in the default similarity (measured: see docs/memory.md). */
export const DEFAULT_SEMANTIC_WEIGHT = 0.75;

/**
 * Calibration of the default embedder's score: `[combined cosine, score]` points, interpolated
 * linearly. Measured on `npm run bench -- memory-quality`: a paraphrase that shares no word with
 * its memory has a median cosine of 0.41 (→ 0.81) and a 10th percentile of 0.29 (→ 0.56); one
 * that shares words 0.60 (→ 0.87); unrelated pairs have a median of 0.11 (→ 0.14) and a 90th
 * percentile of 0.23 (→ 0.40); a memory searched by its own text has 1 (→ 1). Negative cosines
 * score 0.
 */
export const DEFAULT_CALIBRATION: ReadonlyArray<readonly [number, number]> = [
  [0, 0],
  [0.11, 0.14],
  [0.225, 0.4],
  [0.38, 0.8],
  [1, 1],
];

/**
 * The default memory embedder: the Universal Sentence Encoder lite
 * ({@link SentenceEncoderEmbedder}, meaning) blended with the lexical {@link HashingEmbedder}
 * features (exact terms: names, ids, rare words), scores calibrated by
 * {@link DEFAULT_CALIBRATION}. Local, offline and deterministic.
 */
export function createDefaultEmbedder(): HybridEmbedder {
  return new HybridEmbedder(new SentenceEncoderEmbedder(), new HashingEmbedder(), { semanticWeight: DEFAULT_SEMANTIC_WEIGHT, calibration: DEFAULT_CALIBRATION });
}
