import { describe, expect, it } from 'vitest';
import { filteredPage } from '../../../src/core/services/filtered-page.js';
import { MemoryStore } from '../../../src/providers/store/memory-store.js';

/** A store with `count` records in one partition; every third one is red, every 300th rare. */
async function storeWith(count: number): Promise<MemoryStore> {
  const store = new MemoryStore();
  await store.transaction(async (tx) => {
    for (let n = 0; n < count; n++) await tx.insert('things', `t${n}`, { n, red: n % 3 === 0, rare: n % 300 === 0 }, 'p');
  });
  return store;
}

describe('filteredPage', () => {
  it('walks every matching record once, newest first, across reads longer than one step', async () => {
    const store = await storeWith(1000);
    const seen: number[] = [];
    let before: number | undefined;
    for (;;) {
      const page = await filteredPage<{ n: number; red: boolean }>(store.view, 'things', { partition: 'p', limit: 7, ...(before === undefined ? {} : { before }) }, (t) => t.red);
      seen.push(...page.items.map((item) => item.record.n));
      if (!page.hasMore) break;
      before = page.items[page.items.length - 1]!.position;
    }
    const expected = Array.from({ length: 1000 }, (_, n) => n)
      .filter((n) => n % 3 === 0)
      .reverse();
    expect(seen).toEqual(expected);
  });

  it('reads on past one step of records to find matches that lie far apart', async () => {
    const store = await storeWith(1000);
    const first = await filteredPage<{ n: number; rare: boolean }>(store.view, 'things', { partition: 'p', limit: 2 }, (t) => t.rare);
    expect(first.items.map((item) => item.record.n)).toEqual([900, 600]);
    expect(first.hasMore).toBe(true);
    const rest = await filteredPage<{ n: number; rare: boolean }>(store.view, 'things', { partition: 'p', limit: 2, before: first.items[1]!.position }, (t) => t.rare);
    expect(rest.items.map((item) => item.record.n)).toEqual([300, 0]);
    expect(rest.hasMore).toBe(false);
  });

  it('says there is no more when the last match ends the partition', async () => {
    const store = await storeWith(4);
    const page = await filteredPage<{ red: boolean }>(store.view, 'things', { partition: 'p', limit: 2 }, (t) => t.red);
    expect(page.items).toHaveLength(2);
    expect(page.hasMore).toBe(false);
  });

  it('walks oldest first after a position', async () => {
    const store = await storeWith(10);
    const page = await filteredPage<{ n: number; red: boolean }>(store.view, 'things', { partition: 'p', limit: 10, order: 'oldest' }, (t) => t.red);
    expect(page.items.map((item) => item.record.n)).toEqual([0, 3, 6, 9]);
  });
});
