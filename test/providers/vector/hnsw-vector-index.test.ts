import { describe, expect, it } from 'vitest';
import { ExactVectorIndex } from '../../../src/providers/vector/exact-vector-index.js';
import { HnswVectorIndex } from '../../../src/providers/vector/hnsw-vector-index.js';
import { vectorIndexFactory } from '../../../src/providers/vector/vector-index-factory.js';
import { hashingVector } from '../../../src/sim/hashing-embedder.js';
import { clusteredTexts } from './clustered-texts.js';

const COUNT = 3000;

/** 3,000 embedded memories and 200 queries, the same on every run. */
function corpus() {
  const source = clusteredTexts(42);
  const texts = Array.from({ length: COUNT }, () => source.text());
  const vectors = texts.map((text) => hashingVector(text));
  const queries = Array.from({ length: 200 }, (_, i) => hashingVector(source.queryFor(texts[(i * 7919) % COUNT]!)));
  return { vectors, queries, random: source.random };
}

const { vectors, queries, random } = corpus();

function filled<T extends { add(id: string, vector: Float32Array): void; buildGraph?(): void }>(index: T): T {
  vectors.forEach((vector, i) => index.add(`m${i}`, vector));
  index.buildGraph?.();
  return index;
}

const exact = filled(new ExactVectorIndex(384));
const hnsw = filled(new HnswVectorIndex(384));

describe('HnswVectorIndex', () => {
  it('finds at least 90% of the exact top 10 on 3,000 vectors (recall@10 measured against the exact index)', () => {
    let found = 0;
    let total = 0;
    for (const query of queries) {
      const truth = new Set(exact.search(query, 10).map((hit) => hit.id));
      found += hnsw.search(query, 10).filter((hit) => truth.has(hit.id)).length;
      total += truth.size;
    }
    const recall = found / total;
    console.log(`HNSW recall@10 on ${COUNT} vectors: ${recall.toFixed(4)}`);
    expect(recall).toBeGreaterThanOrEqual(0.9);
  });

  it('scores hits exactly, best first, as the exact index would', () => {
    const query = queries[0]!;
    const hits = hnsw.search(query, 10);
    // A graph search (not the exact fallback), and hits to check.
    expect(hnsw.hasGraph).toBe(true);
    expect(hits).toHaveLength(10);
    for (const hit of hits) expect(hit.similarity).toBeCloseTo(exact.similarity(hit.id, query)!, 6);
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.similarity).toBeGreaterThanOrEqual(hits[i]!.similarity);
  });

  it('answers the exact best matches inside a selective restriction, never fewer', () => {
    // exactRestrictionSize 0 forces the graph walk through the filter first, then its fallback.
    const strict = filled(new HnswVectorIndex(384, { exactRestrictionSize: 0 }));
    for (const size of [1, 3, 12, 40]) {
      const allowed = new Set(Array.from({ length: size }, () => `m${Math.floor(random() * COUNT)}`));
      for (const query of queries.slice(0, 20)) {
        const expected = exact.search(query, 10, allowed).map((hit) => hit.id);
        expect(strict.search(query, 10, allowed).map((hit) => hit.id)).toEqual(expected);
        expect(hnsw.search(query, 10, allowed).map((hit) => hit.id)).toEqual(expected);
      }
    }
  });

  it('keeps hits inside a broad restriction and still answers k of them', () => {
    const allowed = new Set(Array.from({ length: COUNT }, (_, i) => `m${i}`).filter((_, i) => i % 3 !== 0));
    const broad = filled(new HnswVectorIndex(384, { exactRestrictionSize: 100 }));
    for (const query of queries.slice(0, 30)) {
      const hits = broad.search(query, 10, allowed);
      expect(hits).toHaveLength(10);
      for (const hit of hits) expect(allowed.has(hit.id)).toBe(true);
    }
  });

  it('never answers removed vectors, and stays correct as deleted nodes are replaced', () => {
    const index = filled(new HnswVectorIndex(384, { m: 8, efConstruction: 50 }));
    const query = queries[3]!;
    const removed = index.search(query, 10).map((hit) => hit.id);
    for (const id of removed) expect(index.remove(id)).toBe(true);
    expect(index.remove(removed[0]!)).toBe(false);
    const after = index.search(query, 50).map((hit) => hit.id);
    for (const id of removed) expect(after).not.toContain(id);
    // Re-add under new ids (reusing deleted graph nodes) and past the initial capacity.
    for (let i = 0; i < 1500; i++) index.add(`again${i}`, vectors[i]!);
    expect(index.size).toBe(COUNT - removed.length + 1500);
    const hits = index.search(vectors[5]!, 5).map((hit) => hit.id);
    expect(hits.slice(0, 2).sort()).toEqual(['again5', 'm5'].sort());
  });

  it('searches exactly (no graph) below minGraphSize, and from there builds the graph in the background, exact meanwhile', async () => {
    const index = new HnswVectorIndex(384, { minGraphSize: 100 });
    vectors.slice(0, 99).forEach((vector, i) => index.add(`m${i}`, vector));
    const small = new ExactVectorIndex(384);
    vectors.slice(0, 99).forEach((vector, i) => small.add(`m${i}`, vector));
    expect(index.search(queries[0]!, 10)).toEqual(small.search(queries[0]!, 10));
    expect(index.hasGraph).toBe(false);
    for (let i = 99; i < 2000; i++) index.add(`m${i}`, vectors[i]!);
    expect(index.hasGraph).toBe(false);
    // The first search at the threshold starts the graph and is answered exactly.
    const all = filled(new ExactVectorIndex(384));
    const restricted = new Set(Array.from({ length: 2000 }, (_, i) => `m${i}`));
    expect(index.search(queries[1]!, 10)).toEqual(all.search(queries[1]!, 10, restricted));
    expect(index.hasGraph).toBe(false);
    index.remove('m5');
    index.add('late', vectors[2500]!);
    await index.whenGraphReady();
    expect(index.hasGraph).toBe(true);
    expect(index.search(vectors[2500]!, 1)[0]!.id).toBe('late');
    expect(index.search(vectors[5]!, 50).map((hit) => hit.id)).not.toContain('m5');
    index.add('after', vectors[2600]!);
    expect(index.search(vectors[2600]!, 1)[0]!.id).toBe('after');
  });
});

describe('vectorIndexFactory', () => {
  it('makes exact, hnsw and auto indexes by name', () => {
    expect(vectorIndexFactory('exact').create(4)).toBeInstanceOf(ExactVectorIndex);
    expect(vectorIndexFactory('hnsw').name).toBe('hnsw');
    const auto = vectorIndexFactory('auto', { hnswThreshold: 3 });
    expect(auto.name).toBe('auto');
    const index = auto.create(2) as HnswVectorIndex;
    index.add('a', Float32Array.of(1, 0));
    index.add('b', Float32Array.of(0, 1));
    index.search(Float32Array.of(1, 0), 1);
    expect(index.hasGraph).toBe(false);
    index.add('c', Float32Array.of(0.6, 0.8));
    index.search(Float32Array.of(1, 0), 1);
    index.buildGraph();
    expect(index.hasGraph).toBe(true);
  });
});
