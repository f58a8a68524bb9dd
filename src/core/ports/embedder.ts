import type { ServiceIdentifier } from '../shared/di.js';

/**
 * Turns texts into vectors for semantic search. The default is a deterministic local embedder
 * (`src/sim/word-vector-embedder.ts`: word vectors blended with lexical features, no network, the
 * same vector on every machine); others run a local model or call an embeddings API
 * (`src/providers/embeddings`). The memory service L2-normalises whatever it
 * gets, so cosine similarity is a dot product.
 */
export interface Embedder {
  /**
   * Names the vector space (model and dimension). It is stored with every memory; memories
   * embedded under another name are embedded again before they are searched.
   */
  readonly model: string;
  /**
   * One vector per text, in the order given, all of the same dimension.
   * @throws Error when the embedding provider fails (answered as 500 internal_error)
   */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  /**
   * Maps a cosine similarity between two of its vectors to the API's `score` (clamped to 0..1
   * afterwards), so that "above 0.80" means a strong match for this embedder. Must be monotone
   * (ranking stays by cosine). Without it the score is the cosine.
   */
  score?(similarity: number): number;
}

/** Injection token of {@link Embedder}. */
export const Embedder = Symbol.for('agent-services/Embedder') as ServiceIdentifier<Embedder>;
