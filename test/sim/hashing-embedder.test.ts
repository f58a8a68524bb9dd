import { describe, expect, it } from 'vitest';
import { HashingEmbedder, featuresOf, hashingVector } from '../../src/sim/hashing-embedder.js';
import { porterStem } from '../../src/sim/porter-stemmer.js';
import { sha256Hex } from '../../src/core/shared/json.js';

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i]!, 0);

describe('porterStem', () => {
  it.each([
    ['caresses', 'caress'],
    ['ponies', 'poni'],
    ['ties', 'ti'],
    ['caress', 'caress'],
    ['cats', 'cat'],
    ['feed', 'feed'],
    ['agreed', 'agre'],
    ['plastered', 'plaster'],
    ['bled', 'bled'],
    ['motoring', 'motor'],
    ['sing', 'sing'],
    ['conflated', 'conflat'],
    ['troubled', 'troubl'],
    ['sized', 'size'],
    ['hopping', 'hop'],
    ['tanned', 'tan'],
    ['falling', 'fall'],
    ['hissing', 'hiss'],
    ['fizzed', 'fizz'],
    ['failing', 'fail'],
    ['filing', 'file'],
    ['happy', 'happi'],
    ['sky', 'sky'],
    ['relational', 'relat'],
    ['conditional', 'condit'],
    ['rational', 'ration'],
    ['valenci', 'valenc'],
    ['digitizer', 'digit'],
    ['generalization', 'gener'],
    ['electrical', 'electr'],
    ['hopeful', 'hope'],
    ['goodness', 'good'],
    ['revival', 'reviv'],
    ['allowance', 'allow'],
    ['inference', 'infer'],
    ['airliner', 'airlin'],
    ['adjustable', 'adjust'],
    ['defensible', 'defens'],
    ['irritant', 'irrit'],
    ['replacement', 'replac'],
    ['adjustment', 'adjust'],
    ['dependent', 'depend'],
    ['adoption', 'adopt'],
    ['communism', 'commun'],
    ['activate', 'activ'],
    ['homologous', 'homolog'],
    ['effective', 'effect'],
    ['bowdlerize', 'bowdler'],
    ['probate', 'probat'],
    ['rate', 'rate'],
    ['cease', 'ceas'],
    ['controlling', 'control'],
    ['roll', 'roll'],
    ['yelling', 'yell'],
  ])('stems %s to %s as Porter (1980) does', (word, stem) => {
    expect(porterStem(word)).toBe(stem);
  });

  it('leaves short words, digits and non-ASCII words unchanged', () => {
    expect(porterStem('is')).toBe('is');
    expect(porterStem('2026')).toBe('2026');
    expect(porterStem('café')).toBe('café');
  });
});

describe('HashingEmbedder', () => {
  it('answers unit vectors of its dimension, one per text, in order', async () => {
    const embedder = new HashingEmbedder(64);
    const [a, b] = await embedder.embed(['first text', 'second text']);
    expect(a).toHaveLength(64);
    expect(cosine(a!, a!)).toBeCloseTo(1, 5);
    expect(cosine(b!, b!)).toBeCloseTo(1, 5);
    expect(embedder.model).toBe('hashing-porter-v1/64');
  });

  it('gives the same bytes for the same text every time (pinned digest, so every machine agrees)', () => {
    const vector = hashingVector('The quick brown fox jumps over the lazy dog.');
    const digest = sha256Hex(new Uint8Array(vector.buffer));
    expect(hashingVector('The quick brown fox jumps over the lazy dog.')).toEqual(vector);
    // Pinned: a change of features, weights or hashing changes every stored vector and must be deliberate.
    expect(digest).toBe(PINNED_DIGEST);
  });

  it('ranks texts that share word forms above unrelated ones', () => {
    const query = hashingVector('invoicing customers late');
    const related = hashingVector('Customer invoices were paid late again');
    const unrelated = hashingVector('The hiking trail climbs through pine forest');
    expect(cosine(query, related)).toBeGreaterThan(cosine(query, unrelated) + 0.2);
  });

  it('gives spelling variants overlapping vectors through character trigrams', () => {
    const british = hashingVector('organisation colour');
    const american = hashingVector('organization color');
    const other = hashingVector('mountain river');
    expect(cosine(british, american)).toBeGreaterThan(0.3);
    expect(cosine(british, american)).toBeGreaterThan(cosine(british, other) + 0.2);
  });

  it('ignores case and Unicode compatibility forms, and embeds stop-word-only and symbol-only texts', () => {
    expect(hashingVector('Ｈｅｌｌｏ WORLD')).toEqual(hashingVector('hello world'));
    expect(featuresOf('to be or not to be').size).toBeGreaterThan(0);
    const emoji = hashingVector('🎉🎉');
    expect(cosine(emoji, emoji)).toBeCloseTo(1, 5);
    expect([...hashingVector('')].every((value) => value === 0)).toBe(true);
  });

  it('refuses a dimension below 8', () => {
    expect(() => new HashingEmbedder(4)).toThrow(RangeError);
  });
});

const PINNED_DIGEST = '63d6fa75b975ebbac277882a9127a3063cf71d1b9275c5cd9068c244ae99ff40';
