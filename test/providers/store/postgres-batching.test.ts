// What the PostgreSQL store does to save round trips, and why none of it may change an answer:
// counts and pages answered from the process's cache are checked in the transaction, numbered
// inserts follow commit order, a unit's last step fails the unit whole, and commits are announced
// to the processes that follow what they changed.
import { describe, expect, it } from 'vitest';
import { closeAfter } from '../../support/close-after.js';
import type { StoreTransaction } from '../../../src/core/ports/store.js';
import { PostgresStore } from '../../../src/providers/store/postgres/postgres-store.js';
import { freshDatabase, postgresSkipReason } from '../../support/postgres.js';

const skip = postgresSkipReason();
if (skip) console.log(`postgres-batching: skipped, ${skip}`);

interface Slot {
  id: string;
}

describe.skipIf(skip !== null)('PostgresStore saves round trips without changing an answer', () => {
  const keep = closeAfter<PostgresStore>();

  /** Two processes' stores on one fresh database. */
  async function twoProcesses(): Promise<[PostgresStore, PostgresStore]> {
    const url = await freshDatabase();
    const a = keep(await PostgresStore.open(url, { maxConnections: 4 }));
    const b = keep(await PostgresStore.open(url, { maxConnections: 4 }));
    return [a, b];
  }

  /** A quota of one slot in partition p: takes it when the count read says it is free. */
  async function takeSlot(store: PostgresStore, id: string, runs: { count: number }): Promise<boolean> {
    return store.transaction(async (tx) => {
      runs.count++;
      if ((await tx.count('slots', 'p')) >= 1) return false;
      await tx.insert<Slot>('slots', id, { id }, 'p');
      return true;
    });
  }

  it('checks a cached count in the transaction: a quota another process filled meanwhile is not passed', async () => {
    const [a, b] = await twoProcesses();
    // A reads the count (0) and keeps it; B then takes the slot.
    expect(await a.transaction((tx) => tx.count('slots', 'p'))).toBe(0);
    expect(await takeSlot(b, 'from-b', { count: 0 })).toBe(true);
    // A's cached 0 is stale: its check fails the first run, and the second reads 1.
    const runs = { count: 0 };
    expect(await takeSlot(a, 'from-a', runs)).toBe(false);
    expect(runs.count).toBe(2);
    expect(await a.view.count('slots', 'p')).toBe(1);
    // A's own commit forgets its cached count: the next read is fresh, in one run.
    const again = { count: 0 };
    expect(await takeSlot(a, 'again', again)).toBe(false);
    expect(again.count).toBe(1);
  });

  it('checks a cached page in the transaction: a row another process removed meanwhile is not acted on', async () => {
    const [a, b] = await twoProcesses();
    await a.transaction(async (tx) => {
      for (const id of ['s1', 's2', 's3', 's4']) await tx.insert<Slot>('queue', id, { id }, 'p');
    });
    const oldestTwo = (tx: StoreTransaction) => tx.page<Slot>('queue', { partition: 'p', order: 'oldest', limit: 2 });
    expect((await a.transaction(oldestTwo)).items.map((item) => item.record.id)).toEqual(['s1', 's2']);
    await b.transaction(async (tx) => void (await tx.remove('queue', 's1')));
    let runs = 0;
    const handled = await a.transaction(async (tx) => {
      runs++;
      const first = (await oldestTwo(tx)).items[0]!.record.id;
      await tx.insert<Slot>('handled', first, { id: first }, 'p');
      return first;
    });
    expect(handled).toBe('s2');
    expect(runs).toBe(2);
    expect((await a.view.page<Slot>('handled', { partition: 'p', limit: 10 })).items.map((item) => item.record.id)).toEqual(['s2']);
  });

  it('checks a record read through the view from the cache: a unit acts only on what is still committed', async () => {
    const [a, b] = await twoProcesses();
    await a.transaction((tx) => tx.insert<{ id: string; name: string }>('profiles', 'p1', { id: 'p1', name: 'old' }));
    // Read through the view inside a unit, as a request reads an agent before its transaction.
    const copyName = (store: PostgresStore, tag: string, runs: { count: number }) =>
      store.unit(async () => {
        runs.count++;
        const profile = await store.view.get<{ name: string }>('profiles', 'p1');
        const id = `${tag}-${runs.count}`;
        await store.transaction((tx) => tx.insert<{ id: string; name: string }>('copies', id, { id, name: profile!.name }));
        return profile!.name;
      });
    expect(await copyName(a, 'first', { count: 0 })).toBe('old');
    await b.transaction(async (tx) => {
      await tx.get('profiles', 'p1');
      await tx.update('profiles', 'p1', { id: 'p1', name: 'new' });
    });
    // A's cached copy says "old": its check fails the first run, the second reads "new".
    const runs = { count: 0 };
    expect(await copyName(a, 'second', runs)).toBe('new');
    expect(runs.count).toBe(2);
    expect((await a.view.get<{ name: string }>('copies', 'second-2'))?.name).toBe('new');
    expect(await a.view.get('copies', 'second-1')).toBeUndefined();
  });

  it('numbers inserts with the commit, in commit order, and writes each number into its record before afterCommit', async () => {
    const [a, b] = await twoProcesses();
    const seen: number[] = [];
    const append = (store: PostgresStore, n: number) =>
      store.unit(async () => {
        await store.transaction(async (tx) => {
          await tx.insert<Slot>('work', `w${n}`, { id: `w${n}` });
          tx.beforeCommit!(async (last) => {
            const entry = { seq: 0, n };
            await last.insertNumbered!('numbered', 'seq', entry);
            last.afterCommit(() => seen.push(entry.seq));
          });
        });
      });
    await Promise.all(Array.from({ length: 30 }, (_, n) => append(n % 2 ? a : b, n)));
    const stored = (await a.view.page<{ seq: number; n: number }>('numbered', { partition: '', order: 'oldest', limit: 100 })).items;
    expect(stored).toHaveLength(30);
    for (const { record, position } of stored) expect(record.seq).toBe(position);
    expect([...seen].sort((x, y) => x - y)).toEqual(stored.map((item) => item.position));
    // The number comes first in the stored record, as a record that carried it would have it.
    const raw = await a.view.get<Record<string, unknown>>('numbered', String(stored[0]!.position));
    expect(Object.keys(raw!)).toEqual(['seq', 'n']);
  });

  it('fails a unit whole when its last step fails: the effect never commits without its record', async () => {
    const [a] = await twoProcesses();
    await expect(
      a.unit(
        async () => a.transaction(async (tx) => tx.insert<Slot>('effects', 'e1', { id: 'e1' })),
        async () => {
          throw new Error('the record could not be written');
        },
      ),
    ).rejects.toThrow('the record could not be written');
    expect(await a.view.get('effects', 'e1')).toBeUndefined();
  });

  it('tells a process of the commits it follows: at once, or batched within the latency it allows', async () => {
    const [a, b] = await twoProcesses();
    const heard: string[] = [];
    b.shared.onRemoteCommit((collections) => heard.push(`jobs:${[...collections].sort().join(',')}`), { collections: ['jobs'] });
    b.shared.onRemoteCommit(() => heard.push('events'), { collections: ['events'], latencyMs: 50 });
    // Opened after B registered: A follows the same collections, so it knows what to announce.
    a.shared.onRemoteCommit(() => {}, { collections: ['jobs'] });
    a.shared.onRemoteCommit(() => {}, { collections: ['events'], latencyMs: 50 });
    await a.transaction(async (tx) => tx.insert<Slot>('jobs', 'j1', { id: 'j1' }));
    await expect.poll(() => heard.filter((entry) => entry.startsWith('jobs:'))).toEqual(['jobs:jobs']);
    await a.transaction(async (tx) => tx.insert<Slot>('events', 'e1', { id: 'e1' }));
    await a.transaction(async (tx) => tx.insert<Slot>('events', 'e2', { id: 'e2' }));
    await expect.poll(() => heard.includes('events')).toBe(true);
  });
});
