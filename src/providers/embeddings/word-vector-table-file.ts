import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { WordVectorTable } from '../../core/ports/word-vectors.js';

/** The magic bytes of a word-vector table file (`scripts/build-word-vectors.mjs` writes it). */
const MAGIC = 'AGWV';
/** The table format this code reads. */
export const WORD_VECTOR_TABLE_FORMAT = 1;

/**
 * Reads a table from the bytes of its file (format: see `scripts/build-word-vectors.mjs`).
 * @throws Error when the bytes are not a table of the supported format
 */
export function parseWordVectorTable(bytes: Uint8Array): WordVectorTable {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = String.fromCharCode(...bytes.subarray(0, 4));
  if (bytes.byteLength < 16 || magic !== MAGIC) throw new Error('not a word-vector table (bad magic bytes)');
  const format = view.getUint32(4, true);
  if (format !== WORD_VECTOR_TABLE_FORMAT) throw new Error(`word-vector table format ${format} is not supported (expected ${WORD_VECTOR_TABLE_FORMAT})`);
  const count = view.getUint32(8, true);
  const dimension = view.getUint32(12, true);
  const rowsAt = 16 + count * 8 + dimension * 4;
  const wordsAt = rowsAt + count * dimension;
  if (count === 0 || dimension === 0 || wordsAt > bytes.byteLength) throw new Error('word-vector table is truncated');
  // Copies, so the table is aligned and owns its memory whatever buffer the bytes came in.
  const scales = new Float32Array(count);
  const probabilities = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    scales[i] = view.getFloat32(16 + i * 4, true);
    probabilities[i] = view.getFloat32(16 + count * 4 + i * 4, true);
  }
  const common = new Float32Array(dimension);
  for (let d = 0; d < dimension; d++) common[d] = view.getFloat32(16 + count * 8 + d * 4, true);
  const rows = new Int8Array(count * dimension);
  rows.set(new Int8Array(bytes.buffer, bytes.byteOffset + rowsAt, count * dimension));
  const words = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(wordsAt)).split('\n');
  if (words.length !== count + 1 || words[count] !== '') throw new Error('word-vector table has the wrong number of words');
  const byWord = new Map<string, number>();
  for (let i = 0; i < count; i++) byWord.set(words[i]!, i);
  return {
    dimension,
    count,
    words: words.slice(0, count),
    rows,
    scales,
    probabilities,
    common,
    indexOf(word: string): number {
      return byWord.get(word) ?? -1;
    },
  };
}

/** The table the default embedder uses, shipped with the package (built by `scripts/build-word-vectors.mjs`). */
export const DEFAULT_WORD_VECTOR_TABLE = fileURLToPath(new URL('../../../data/word-vectors-en-100k.bin', import.meta.url));

/** Tables read so far in this process, by path: every runtime shares one copy (about 12 MB). */
const loaded = new Map<string, Promise<WordVectorTable>>();

/**
 * The word-vector table of the file at `path` (default: the shipped one), read once per process.
 * @throws Error when the file is missing or not a table of the supported format
 */
export function loadWordVectorTable(path: string = DEFAULT_WORD_VECTOR_TABLE): Promise<WordVectorTable> {
  let table = loaded.get(path);
  if (!table) {
    table = readFile(path).then(
      (bytes) => parseWordVectorTable(bytes),
      (error: unknown) => {
        throw new Error(`cannot read the word-vector table ${path} (${(error as Error).message}); rebuild it with node scripts/build-word-vectors.mjs`);
      },
    );
    // A failed read is not cached: a later call may find the file.
    table.catch(() => loaded.delete(path));
    loaded.set(path, table);
  }
  return table;
}
