import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/shared/json.js';
import { loadWordVectorTable, parseWordVectorTable } from '../../src/providers/embeddings/word-vector-table-file.js';
import { HashingEmbedder } from '../../src/sim/hashing-embedder.js';
import { HybridEmbedder } from '../../src/sim/hybrid-embedder.js';
import { WORD_VECTOR_CALIBRATION, WordVectorEmbedder, createWordVectorEmbedder, rowOf, sifVector } from '../../src/sim/word-vector-embedder.js';

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i]!, 0);
// One table per process: every test shares the loader's cached copy.
const table = await loadWordVectorTable();
const load = () => loadWordVectorTable();

describe('the shipped word-vector table', () => {
  it('holds the 100,000 most frequent words of GloVe 6B, 100 dimensions, a unit common direction', () => {
    expect(table.count).toBe(100_000);
    expect(table.dimension).toBe(100);
    expect(table.words.slice(0, 3)).toEqual(['the', 'of', 'to']);
    expect(table.indexOf('feline')).toBeGreaterThan(0);
    expect(table.indexOf('Feline')).toBe(-1);
    expect(cosine(table.common, table.common)).toBeCloseTo(1, 5);
    expect(table.probabilities[0]!).toBeGreaterThan(table.probabilities[1000]!);
  });

  it('is read once per process', async () => {
    expect(await loadWordVectorTable()).toBe(table);
  });

  it('refuses bytes that are not a table, another format, or a truncated file', () => {
    expect(() => parseWordVectorTable(new TextEncoder().encode('{"not":"a table"}'))).toThrow(/bad magic/);
    const header = new Uint8Array(16);
    header.set(new TextEncoder().encode('AGWV'));
    new DataView(header.buffer).setUint32(4, 9, true);
    expect(() => parseWordVectorTable(header)).toThrow(/format 9 is not supported/);
    new DataView(header.buffer).setUint32(4, 1, true);
    new DataView(header.buffer).setUint32(8, 10, true);
    new DataView(header.buffer).setUint32(12, 100, true);
    expect(() => parseWordVectorTable(header)).toThrow(/truncated/);
  });

  it('answers a clear error for a missing file', async () => {
    await expect(loadWordVectorTable('/nonexistent/table.bin')).rejects.toThrow(/cannot read the word-vector table .*build-word-vectors/);
  });
});

describe('WordVectorEmbedder (SIF over word vectors)', () => {
  it('places a paraphrase that shares no word near its text, and unrelated text far', () => {
    const memory = sifVector(table, 'My cat Tom sleeps all day');
    expect(cosine(sifVector(table, 'feline companion'), memory)).toBeGreaterThan(cosine(sifVector(table, 'quarterly tax payment deadline'), memory) + 0.2);
    expect(cosine(sifVector(table, 'automobile'), sifVector(table, 'car'))).toBeGreaterThan(0.5);
  });

  it('finds a known form with the same stem for a word the table lacks', () => {
    expect(table.indexOf('invoicing')).toBe(-1);
    expect(table.words[rowOf(table, 'invoicing')]).toBe('invoices');
    expect(table.words[rowOf(table, 'payables')]).toBe('payable');
    expect(rowOf(table, 'the')).toBe(0);
    expect(rowOf(table, 'qqzzxxw')).toBe(-1);
  });

  it('gives a text of unknown words the zero vector (the lexical half carries them)', () => {
    expect(table.indexOf('qqzzxxw')).toBe(-1);
    expect([...sifVector(table, 'qqzzxxw 🎉')].every((value) => value === 0)).toBe(true);
  });

  it('gives the same bits for the same text on every call (pinned digest)', async () => {
    const embedder = new WordVectorEmbedder(load);
    const [vector] = await embedder.embed(['The quick brown fox jumps over the lazy dog.']);
    expect(sha256Hex(new Uint8Array(vector!.buffer))).toBe(SIF_DIGEST);
    expect(embedder.model).toBe('sif-v1:glove6b-100k-int8/100');
  });
});

describe('the word-vector hybrid embedder (the fast option)', () => {
  const embedder = createWordVectorEmbedder(load);

  it('names the vector space with both parts and their weight, so older vectors are embedded again', () => {
    expect(embedder.model).toBe('hybrid-v1(0.8):sif-v1:glove6b-100k-int8/100+hashing-porter-v1/384');
  });

  it('blends the cosines: w · semantic + (1 − w) · lexical', async () => {
    const texts = ['the invoice was paid late', 'a bill settled after the deadline'];
    const [a, b] = await embedder.embed(texts);
    const [sa, sb] = await new WordVectorEmbedder(load).embed(texts);
    const [la, lb] = await new HashingEmbedder().embed(texts);
    expect(a).toHaveLength(484);
    expect(cosine(a!, b!)).toBeCloseTo(0.8 * cosine(sa!, sb!) + 0.2 * cosine(la!, lb!), 5);
  });

  it('lets an exact rare term win over a paraphrase of the same topic', async () => {
    const [query, named, other] = await embedder.embed(['Whitfield', 'Dana Whitfield approves the payables', 'the accounts payable contact approves invoices']);
    expect(cosine(query!, named!)).toBeGreaterThan(cosine(query!, other!));
  });

  it('pins its bits (digest), so a change of table, weights or features is deliberate', async () => {
    const [vector] = await embedder.embed(['The quick brown fox jumps over the lazy dog.']);
    expect(sha256Hex(new Uint8Array(vector!.buffer))).toBe(HYBRID_DIGEST);
  });

  it('calibrates scores: the text itself scores 1, a median paraphrase 0.8 and more, unrelated pairs low', () => {
    expect(embedder.score(1)).toBe(1);
    expect(embedder.score(0.45)).toBeGreaterThan(0.8);
    expect(embedder.score(0.06)).toBeLessThan(0.15);
    expect(embedder.score(-0.3)).toBe(0);
    const points = Array.from({ length: 101 }, (_, i) => embedder.score(i / 100 - 0.001));
    for (let i = 1; i < points.length; i++) expect(points[i]!).toBeGreaterThanOrEqual(points[i - 1]!);
    expect(WORD_VECTOR_CALIBRATION.at(-1)).toEqual([1, 1]);
  });

  it('refuses a weight outside 0..1 and calibration points that do not increase', () => {
    const hashing = new HashingEmbedder();
    expect(() => new HybridEmbedder(hashing, hashing, { semanticWeight: 1.5 })).toThrow(RangeError);
    expect(
      () =>
        new HybridEmbedder(hashing, hashing, {
          calibration: [
            [0.5, 0.5],
            [0.4, 0.9],
          ],
        }),
    ).toThrow(RangeError);
    expect(new HybridEmbedder(hashing, hashing).score(0.42)).toBe(0.42);
  });
});

const SIF_DIGEST = '04884d66c0c98db5c0a9268acefa9d48c20e6a607d74a2e2bea130cb7c04c907';
const HYBRID_DIGEST = 'a3b3bc0836054c7393ff529ee286722360f087a568eb1f1f93d2e987d3d439b6';
