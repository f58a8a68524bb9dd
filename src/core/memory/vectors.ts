/** Vector helpers: normalisation, similarity to score, and a compact text form for the store. */
import type { Embedder } from '../ports/embedder.js';
import { ApiError } from '../shared/api-error.js';

/** A copy of `vector` scaled to unit length (a zero vector stays zero). */
export function normalize(vector: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
  const out = new Float32Array(vector.length);
  if (norm === 0 || !Number.isFinite(norm)) return out;
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < vector.length; i++) out[i] = vector[i]! * scale;
  return out;
}

/**
 * Normalised vectors of texts, one per text, from `embedder`.
 * @throws ApiError 500 internal_error when it answers the wrong number of vectors (or fails)
 */
export async function embedNormalized(embedder: Embedder, texts: readonly string[]): Promise<Float32Array[]> {
  if (texts.length === 0) return [];
  const vectors = await embedder.embed(texts);
  if (vectors.length !== texts.length) throw new ApiError('internal_error', 'the embedder answered the wrong number of vectors');
  return vectors.map(normalize);
}

/**
 * The `score` of a search result: cosine similarity clamped to 0..1 (DECISIONS.md), rounded to
 * six decimals so float noise (1.0000001) never shows.
 */
export function scoreOf(similarity: number): number {
  const clamped = Math.min(1, Math.max(0, similarity));
  return Math.round(clamped * 1e6) / 1e6;
}

/** A vector as base64 of little-endian float32, the form memories keep it in (and snapshots carry). */
export function encodeVector(vector: Float32Array): string {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i]!, true);
  return Buffer.from(bytes).toString('base64');
}

/** The vector of {@link encodeVector}'s text; undefined when the text is not one. */
export function decodeVector(text: string): Float32Array | undefined {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.byteLength === 0 || bytes.byteLength % 4 !== 0) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Float32Array(bytes.byteLength / 4);
  for (let i = 0; i < vector.length; i++) {
    const value = view.getFloat32(i * 4, true);
    if (!Number.isFinite(value)) return undefined;
    vector[i] = value;
  }
  return vector;
}
