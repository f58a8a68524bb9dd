import type { Embedder } from '../core/ports/embedder.js';

/** Options of {@link HybridEmbedder}. */
export interface HybridEmbedderOptions {
  /** Share of the semantic cosine in the combined similarity, 0..1 (default 0.8). */
  semanticWeight?: number;
  /**
   * Points `[similarity, score]`, increasing in both, through which {@link HybridEmbedder.score}
   * maps a combined cosine to the API's score by linear interpolation (clamped to 0..1 outside).
   * Without them the score is the cosine.
   */
  calibration?: ReadonlyArray<readonly [similarity: number, score: number]>;
}

/**
 * Hybrid ranking in one vector: the normalised semantic vector scaled by √w next to the
 * normalised lexical vector scaled by √(1−w). The dot product of two such vectors is
 * `w · cos_semantic + (1 − w) · cos_lexical`, so any vector index ranks by the blend: paraphrases
 * are found through meaning, and a shared exact term (a name, an id, a rare word, which word
 * vectors do not know or blur) still lifts its memory above others.
 */
export class HybridEmbedder implements Embedder {
  readonly model: string;
  private readonly semanticScale: number;
  private readonly lexicalScale: number;
  private readonly knots: ReadonlyArray<readonly [number, number]>;

  /** @throws RangeError when the weight is outside 0..1 or the calibration points do not increase */
  constructor(
    private readonly semantic: Embedder,
    private readonly lexical: Embedder,
    options: HybridEmbedderOptions = {},
  ) {
    const weight = options.semanticWeight ?? 0.8;
    if (!(weight >= 0 && weight <= 1)) throw new RangeError('semanticWeight must be within 0..1');
    this.semanticScale = Math.sqrt(weight);
    this.lexicalScale = Math.sqrt(1 - weight);
    this.knots = options.calibration ?? [];
    for (let i = 1; i < this.knots.length; i++) {
      if (!(this.knots[i]![0] > this.knots[i - 1]![0] && this.knots[i]![1] >= this.knots[i - 1]![1])) throw new RangeError('calibration points must increase');
    }
    this.model = `hybrid-v1(${weight}):${semantic.model}+${lexical.model}`;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const [semantic, lexical] = await Promise.all([this.semantic.embed(texts), this.lexical.embed(texts)]);
    return texts.map((_, i) => concatenate(unit(semantic[i]!), this.semanticScale, unit(lexical[i]!), this.lexicalScale));
  }

  /** The calibrated score of a combined cosine similarity (monotone: ranking is unchanged). */
  score(similarity: number): number {
    const knots = this.knots;
    if (knots.length === 0) return similarity;
    if (similarity <= knots[0]![0]) return knots[0]![1];
    for (let i = 1; i < knots.length; i++) {
      const [x1, y1] = knots[i]!;
      if (similarity <= x1) {
        const [x0, y0] = knots[i - 1]!;
        return y0 + ((similarity - x0) * (y1 - y0)) / (x1 - x0);
      }
    }
    return knots[knots.length - 1]![1];
  }
}

/** `vector` scaled to unit length, in float64 (zero stays zero). */
function unit(vector: Float32Array): Float64Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
  const out = new Float64Array(vector.length);
  if (norm === 0) return out;
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < vector.length; i++) out[i] = vector[i]! * scale;
  return out;
}

/** `[a · aScale, b · bScale]`, renormalised (a zero part leaves the other part whole). */
function concatenate(a: Float64Array, aScale: number, b: Float64Array, bScale: number): Float32Array {
  const out = new Float64Array(a.length + b.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]! * aScale;
  for (let i = 0; i < b.length; i++) out[a.length + i] = b[i]! * bScale;
  let norm = 0;
  for (let i = 0; i < out.length; i++) norm += out[i]! * out[i]!;
  const vector = new Float32Array(out.length);
  if (norm === 0) return vector;
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < out.length; i++) vector[i] = out[i]! * scale;
  return vector;
}
