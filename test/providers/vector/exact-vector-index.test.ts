import { describe, expect, it } from 'vitest';
import { ExactVectorIndex } from '../../../src/providers/vector/exact-vector-index.js';

function seeded(seed: number) {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

function unitVectors(count: number, dimension: number, seed = 7): Float32Array[] {
  const random = seeded(seed);
  return Array.from({ length: count }, () => {
    const vector = Float32Array.from({ length: dimension }, () => random() * 2 - 1);
    const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
    return vector.map((value) => value / norm);
  });
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i]!, 0);

/** The reference answer: every stored vector scored, sorted by similarity then id. */
function bruteForce(stored: Map<string, Float32Array>, query: Float32Array, k: number, allowed?: Set<string>) {
  return [...stored]
    .filter(([id]) => !allowed || allowed.has(id))
    .map(([id, vector]) => ({ id, similarity: dot(vector, query) }))
    .sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : 1))
    .slice(0, k);
}

describe('ExactVectorIndex', () => {
  const vectors = unitVectors(500, 24);
  const build = () => {
    const index = new ExactVectorIndex(24, 4);
    const stored = new Map<string, Float32Array>();
    vectors.forEach((vector, i) => {
      index.add(`m${String(i).padStart(3, '0')}`, vector);
      stored.set(`m${String(i).padStart(3, '0')}`, vector);
    });
    return { index, stored };
  };

  it.each([1, 5, 50, 600])('answers exactly the brute-force top %i, best first', (k) => {
    const { index, stored } = build();
    for (const query of unitVectors(20, 24, 99)) {
      const hits = index.search(query, k);
      const expected = bruteForce(stored, query, k);
      expect(hits.map((hit) => hit.id)).toEqual(expected.map((hit) => hit.id));
      hits.forEach((hit, i) => expect(hit.similarity).toBeCloseTo(expected[i]!.similarity, 5));
    }
  });

  it('breaks ties by id', () => {
    const index = new ExactVectorIndex(2);
    const same = Float32Array.of(1, 0);
    for (const id of ['c', 'a', 'b']) index.add(id, same);
    expect(index.search(same, 3).map((hit) => hit.id)).toEqual(['a', 'b', 'c']);
    expect(index.search(same, 2).map((hit) => hit.id)).toEqual(['a', 'b']);
  });

  it('restricts to allowed ids before ranking: the best inside the restriction, never fewer', () => {
    const { index, stored } = build();
    const allowed = new Set(['m007', 'm123', 'm400', 'm499', 'not-stored']);
    const query = unitVectors(1, 24, 5)[0]!;
    const hits = index.search(query, 10, allowed);
    expect(hits.map((hit) => hit.id)).toEqual(bruteForce(stored, query, 10, allowed).map((hit) => hit.id));
    expect(hits).toHaveLength(4);
    expect(index.search(query, 2, allowed)).toHaveLength(2);
    expect(index.search(query, 10, new Set())).toEqual([]);
  });

  it('never answers a removed vector, and reuses its slot without disturbing the others', () => {
    const { index, stored } = build();
    const query = vectors[42]!;
    expect(index.search(query, 1)[0]!.id).toBe('m042');
    expect(index.remove('m042')).toBe(true);
    expect(index.remove('m042')).toBe(false);
    stored.delete('m042');
    expect(index.search(query, 500).map((hit) => hit.id)).not.toContain('m042');
    const fresh = unitVectors(1, 24, 1234)[0]!;
    index.add('fresh', fresh);
    stored.set('fresh', fresh);
    expect(index.size).toBe(500);
    for (const probe of unitVectors(10, 24, 77)) expect(index.search(probe, 20).map((hit) => hit.id)).toEqual(bruteForce(stored, probe, 20).map((hit) => hit.id));
  });

  it('ignores a second add of the same id and refuses vectors of another dimension', () => {
    const index = new ExactVectorIndex(2);
    index.add('a', Float32Array.of(1, 0));
    index.add('a', Float32Array.of(0, 1));
    expect(index.size).toBe(1);
    expect(index.search(Float32Array.of(1, 0), 1)[0]!.similarity).toBeCloseTo(1);
    expect(() => index.add('b', Float32Array.of(1, 0, 0))).toThrow(RangeError);
    expect(() => index.search(Float32Array.of(1), 1)).toThrow(RangeError);
  });
});
