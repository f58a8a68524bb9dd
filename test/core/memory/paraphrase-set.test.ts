import { describe, expect, it } from 'vitest';
import { HashingEmbedder, createRuntime } from '../../../src/index.js';
import { featuresOf } from '../../../src/sim/hashing-embedder.js';
import { EXACT_QUERIES, PARAPHRASE_SET, type ParaphraseItem } from './paraphrase-set.js';
import { PARAPHRASE_HOLDOUT } from './paraphrase-holdout.js';
import { createDefaultEmbedder } from '../../../src/runtime/default-embedder.js';
import { MEMORIES } from './labelled-set.js';

/** The Porter stems of a text's content words (stop words left out), as the lexical embedder sees them. */
const stems = (text: string) => new Set([...featuresOf(text).keys()].filter((feature) => feature.startsWith('w:')));

describe.each([
  ['the paraphrase set', PARAPHRASE_SET, 50],
  ['the held-out paraphrase set', PARAPHRASE_HOLDOUT, 40],
] as Array<[string, readonly ParaphraseItem[], number]>)('%s', (_, set, size) => {
  it(`has at least ${size} questions, each sharing no content word or stem with its note`, () => {
    expect(set.length).toBeGreaterThanOrEqual(size);
    expect(new Set(set.map((item) => item.key)).size).toBe(set.length);
    for (const item of set) {
      const note = stems(item.memory);
      expect(
        [...stems(item.query)].filter((stem) => note.has(stem)),
        item.key,
      ).toEqual([]);
    }
  });

  it('gives every distractor a word of its question', () => {
    for (const item of set) {
      const query = stems(item.query);
      expect(
        [...stems(item.distractor)].some((stem) => query.has(stem)),
        item.key,
      ).toBe(true);
    }
  });
});

describe('semantic search with the default embedder, through the API', () => {
  it('finds paraphrases among distractors, keeps exact terms first, and calibrates scores', async () => {
    const runtime = await createRuntime({ seed: 11 });
    const { api_key } = await runtime.createAgent({ name: 'paraphrase' });
    const agent = runtime.agent(api_key);
    for (const item of PARAPHRASE_SET) {
      await agent.memory.create({ content: item.memory, metadata: { key: `p:${item.key}` } });
      await agent.memory.create({ content: item.distractor, metadata: { key: `d:${item.key}` } });
    }
    let top1 = 0;
    let top5 = 0;
    const firstScores: number[] = [];
    for (const item of PARAPHRASE_SET) {
      const { memories } = await agent.memory.search({ query: item.query, limit: 5, metadata_filter: {} });
      const rank = memories.findIndex((memory) => memory.metadata.key === `p:${item.key}`);
      if (rank === 0) top1++;
      if (rank >= 0) top5++;
      if (rank >= 0) firstScores.push(memories[rank]!.score);
    }
    console.log(`paraphrase set through the API: top-1 ${top1}/${PARAPHRASE_SET.length}, recall@5 ${top5}/${PARAPHRASE_SET.length}`);
    // The goals (measured: 0.73 and 0.90, docs/memory.md): a regression fails here.
    expect(top1 / PARAPHRASE_SET.length).toBeGreaterThanOrEqual(0.6);
    expect(top5 / PARAPHRASE_SET.length).toBeGreaterThanOrEqual(0.9);
    // Exact terms, among every note of both sets (another agent: its own index).
    const all = runtime.agent((await runtime.createAgent({ name: 'all-notes' })).api_key);
    for (const item of PARAPHRASE_SET) {
      await all.memory.create({ content: item.memory, metadata: { key: `p:${item.key}` } });
      await all.memory.create({ content: item.distractor, metadata: { key: `d:${item.key}` } });
    }
    for (const [key, content] of Object.entries(MEMORIES)) await all.memory.create({ content, metadata: { key } });
    for (const [query, key] of EXACT_QUERIES) {
      const { memories } = await all.memory.search({ query, limit: 5 });
      expect(
        memories.map((memory) => memory.metadata.key),
        query,
      ).toContain(key);
    }
    // Calibration: a memory searched by its own text scores 1; half the paraphrases found score
    // above 0.8; a text about nothing here scores low against most notes (its best hit among
    // 124 everyday notes may reach 0.8: averaged word vectors also see topic neighbours).
    const own = await agent.memory.search({ query: PARAPHRASE_SET[0]!.memory, limit: 1 });
    expect(own.memories[0]!.score).toBe(1);
    firstScores.sort((a, b) => a - b);
    expect(firstScores[Math.floor(firstScores.length / 2)]!).toBeGreaterThan(0.8);
    const unrelated = await agent.memory.search({ query: 'grandmother knits woollen scarves', limit: 50 });
    expect(unrelated.memories[25]!.score).toBeLessThan(0.5);
    expect(unrelated.memories[0]!.score).toBeLessThan(0.85);
  });

  it('embeds again the memories of a world made with the old lexical default', async () => {
    const old = await createRuntime({ seed: 12, providers: { embedder: new HashingEmbedder() } });
    const { api_key } = await old.createAgent({ name: 'upgrade' });
    await old.agent(api_key).memory.create({ content: 'My cat Tom sleeps all day on the sofa.' });
    await old.agent(api_key).memory.create({ content: 'The invoice from Acme is due on Friday.' });
    const before = await old.agent(api_key).memory.search({ query: 'feline companion' });
    expect(before.memories[0]!.score).toBeLessThan(0.1);
    const current = await createRuntime({ seed: 12 });
    await current.sim.restore(JSON.parse(JSON.stringify(await old.sim.snapshot())));
    const { memories } = await current.agent(api_key).memory.search({ query: 'feline companion' });
    expect(memories[0]!.content).toBe('My cat Tom sleeps all day on the sofa.');
    const models = (await current.sim.snapshot()).store.collections.memories!.rows.map((row) => (row[3] as { embedding_model: string }).embedding_model);
    expect(new Set(models)).toEqual(new Set([createDefaultEmbedder().model]));
  });

  it('finds the held-out paraphrases, which no weight or rule was chosen on, as well', async () => {
    const runtime = await createRuntime({ seed: 13 });
    const agent = runtime.agent((await runtime.createAgent({ name: 'held-out' })).api_key);
    for (const item of PARAPHRASE_HOLDOUT) {
      await agent.memory.create({ content: item.memory, metadata: { key: `p:${item.key}` } });
      await agent.memory.create({ content: item.distractor, metadata: { key: `d:${item.key}` } });
    }
    let top1 = 0;
    let top5 = 0;
    for (const item of PARAPHRASE_HOLDOUT) {
      const { memories } = await agent.memory.search({ query: item.query, limit: 5 });
      const rank = memories.findIndex((memory) => memory.metadata.key === `p:${item.key}`);
      if (rank === 0) top1++;
      if (rank >= 0) top5++;
    }
    // Measured: 0.72 and 0.95.
    expect(top1 / PARAPHRASE_HOLDOUT.length).toBeGreaterThanOrEqual(0.6);
    expect(top5 / PARAPHRASE_HOLDOUT.length).toBeGreaterThanOrEqual(0.9);
  });
});
