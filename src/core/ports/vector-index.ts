import type { ServiceIdentifier } from '../shared/di.js';

/** One search hit: a stored id and its cosine similarity to the query (-1..1). */
export interface VectorHit {
  id: string;
  similarity: number;
}

/**
 * Nearest-neighbour search over L2-normalised vectors, for one agent's memories (each agent has
 * its own index, so one agent's search can never see another's vectors). Derived state: the
 * memory service rebuilds it from the store whenever it is needed.
 */
export interface VectorIndex {
  /** Length of every vector. */
  readonly dimension: number;
  /** How many vectors are stored. */
  readonly size: number;
  /** Whether `id` is stored. */
  has(id: string): boolean;
  /** Stores a normalised vector under `id`; adding an id that is already stored changes nothing. */
  add(id: string, vector: Float32Array): void;
  /** Removes `id`; false when it was not stored. */
  remove(id: string): boolean;
  /**
   * The `k` stored vectors most similar to `query`, best first (ties by id), restricted to
   * `allowed` when given. The restriction is applied before ranking: the answer holds
   * min(k, |allowed ∩ stored|) hits, never fewer because of the restriction.
   */
  search(query: Float32Array, k: number, allowed?: ReadonlySet<string>): VectorHit[];
}

/** Makes empty indexes; which adapter (exact, HNSW) is the factory's choice. */
export interface VectorIndexFactory {
  /** Short name for logs and benchmarks (`exact`, `hnsw`, `auto`). */
  readonly name: string;
  /** A new empty index for vectors of `dimension`. */
  create(dimension: number): VectorIndex;
}

/** Injection token of {@link VectorIndexFactory}. */
export const VectorIndexFactory = Symbol.for('agent-services/VectorIndexFactory') as ServiceIdentifier<VectorIndexFactory>;
