import type { ServiceIdentifier } from '../shared/di.js';

/**
 * Turns texts into vectors for semantic search. The default is a deterministic local embedder
 * (`src/sim/hashing-embedder.ts`: no network, the same vector on every machine); a real one calls
 * an embeddings API (`src/providers/embeddings`). The memory service L2-normalises whatever it
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
}

/** Injection token of {@link Embedder}. */
export const Embedder = Symbol.for('agent-services/Embedder') as ServiceIdentifier<Embedder>;
