/**
 * A table of word vectors, quantised to int8 rows with one scale per word, and each word's
 * unigram probability; words are in frequency order (index 0 is the most frequent). The default
 * memory embedder (`src/sim/word-vector-embedder.ts`) computes with it; a provider reads it
 * (`src/providers/embeddings/word-vector-table-file.ts`).
 */
export interface WordVectorTable {
  /** Numbers per vector. */
  readonly dimension: number;
  /** Words in the table. */
  readonly count: number;
  /** The words, lower case, most frequent first. */
  readonly words: readonly string[];
  /** Row `i` is `rows[i·dimension … (i+1)·dimension)`, each value times `scales[i]`. */
  readonly rows: Int8Array;
  /** The scale of each row. */
  readonly scales: Float32Array;
  /** Each word's unigram probability (Zipf's law over its frequency rank in the source corpus). */
  readonly probabilities: Float32Array;
  /** The unit direction common to all sentence vectors, which the embedder projects out (SIF). */
  readonly common: Float32Array;
  /** The row of `word` (lower case), or -1 when the table does not have it. */
  indexOf(word: string): number;
}
