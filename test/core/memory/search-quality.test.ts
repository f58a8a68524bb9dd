import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../../src/index.js';
import { MEMORIES, QUERIES } from './labelled-set.js';

describe('search quality with the default embedder', () => {
  it('ranks the relevant memory first for at least 80% of a labelled set of queries', async () => {
    const runtime = await createRuntime({ seed: 3 });
    const { api_key } = await runtime.createAgent({ name: 'quality' });
    const agent = runtime.agent(api_key);
    const idOf = new Map<string, string>();
    for (const [key, content] of Object.entries(MEMORIES)) idOf.set((await agent.memory.create({ content, metadata: { key } })).memory_id, key);
    let top1 = 0;
    let reciprocalRanks = 0;
    const misses: string[] = [];
    for (const [query, relevant] of QUERIES) {
      const { memories } = await agent.memory.search({ query, limit: 10 });
      const rank = memories.findIndex((memory) => memory.metadata.key === relevant);
      if (rank === 0) top1++;
      else misses.push(`${query} → ${memories[0]?.metadata.key} (relevant at ${rank})`);
      reciprocalRanks += rank >= 0 ? 1 / (rank + 1) : 0;
    }
    const hitRate = top1 / QUERIES.length;
    console.log(`labelled set: top-1 ${top1}/${QUERIES.length} (${(hitRate * 100).toFixed(0)}%), MRR ${(reciprocalRanks / QUERIES.length).toFixed(3)}${misses.length ? `; misses: ${misses.join('; ')}` : ''}`);
    expect(hitRate).toBeGreaterThanOrEqual(0.8);
    expect(idOf.size).toBe(Object.keys(MEMORIES).length);
  });

  it('scores unrelated text far below related text', async () => {
    const runtime = await createRuntime();
    const { api_key } = await runtime.createAgent({ name: 'scores' });
    const agent = runtime.agent(api_key);
    await agent.memory.create({ content: 'Deployments to production happen on Tuesdays after the integration tests pass.' });
    const related = await agent.memory.search({ query: 'which day do we deploy to production' });
    const unrelated = await agent.memory.search({ query: 'grandmother knits woollen scarves' });
    expect(related.memories[0]!.score).toBeGreaterThan(0.3);
    expect(unrelated.memories[0]!.score).toBeLessThan(0.1);
  });
});
