import type { VectorIndexFactory } from '../../core/ports/vector-index.js';
import { ExactVectorIndexFactory } from './exact-vector-index.js';
import { HnswVectorIndexFactory, type HnswOptions } from './hnsw-vector-index.js';

/** Memories of one agent from which the `auto` index searches an HNSW graph. */
export const DEFAULT_HNSW_THRESHOLD = 10_000;

/**
 * The vector index factory for a choice: `exact` (brute force), `hnsw` (always a graph) or
 * `auto` (exact while an agent has fewer than `hnswThreshold` memories, a graph from there on:
 * exact search is faster and perfect for small sets, a graph wins for large ones).
 */
export function vectorIndexFactory(choice: 'auto' | 'exact' | 'hnsw' = 'auto', options: { hnswThreshold?: number; hnsw?: HnswOptions } = {}): VectorIndexFactory {
  if (choice === 'exact') return new ExactVectorIndexFactory();
  if (choice === 'hnsw') return new HnswVectorIndexFactory({ ...options.hnsw, minGraphSize: 0 });
  return new HnswVectorIndexFactory({ ...options.hnsw, minGraphSize: Math.max(1, options.hnswThreshold ?? DEFAULT_HNSW_THRESHOLD) });
}
