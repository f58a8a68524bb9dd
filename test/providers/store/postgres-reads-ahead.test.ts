// Reads a PostgreSQL unit makes without a round trip of their own: reads asked for together travel
// as one statement, and records read ahead (`tx.prefetch`) travel with the unit's next batch; reads
// outside units share the claims' grouped statements. Neither
// may change an answer: a record read ahead that another transaction changes before the unit
// writes it is a conflict, and the unit runs again on what is committed.
import { describe, expect, it } from 'vitest';
import { closeAfter } from '../../support/close-after.js';
import { PostgresStore } from '../../../src/providers/store/postgres/postgres-store.js';
import { freshDatabase, postgresSkipReason } from '../../support/postgres.js';

const skip = postgresSkipReason();
if (skip) console.log(`postgres-reads-ahead: skipped, ${skip}`);

interface Counter {
  n: number;
}

describe.skipIf(skip !== null)('PostgresStore reads ahead without changing an answer', () => {
  const keep = closeAfter<PostgresStore>();

  /** A store on a fresh database that logs the statements of its main pool. */
  async function logged(url?: string): Promise<{ store: PostgresStore; statements: string[] }> {
    const statements: string[] = [];
    const store = keep(await PostgresStore.open(url ?? (await freshDatabase()), { maxConnections: 4, onStatement: (text) => statements.push(text) }));
    return { store, statements };
  }

  async function seed(store: PostgresStore): Promise<void> {
    await store.transaction(async (tx) => {
      await tx.insert<Counter>('money', 'm', { n: 100 });
      await tx.insert<Counter>('counters', 'a', { n: 1 });
      await tx.insert<Counter>('counters', 'b', { n: 2 });
    });
  }

  it('sends reads asked for together as one statement', async () => {
    const { store, statements } = await logged();
    await seed(store);
    statements.length = 0;
    const read = await store.transaction(async (tx) => Promise.all([tx.get<Counter>('counters', 'a'), tx.get<Counter>('counters', 'b'), tx.get<Counter>('counters', 'none')]));
    expect(read).toEqual([{ n: 1 }, { n: 2 }, undefined]);
    const batches = statements.filter((text) => text.includes('agent_services_batch') || text.includes('FROM agent_services_records'));
    expect(batches).toHaveLength(1);
  });

  it('reads records ahead with the next batch: their reads need no statement, their writes are checked', async () => {
    const { store, statements } = await logged();
    await seed(store);
    statements.length = 0;
    await store.unit(() =>
      store.transaction(async (tx) => {
        await tx.lock('money', ['m']);
        tx.prefetch?.('counters', ['a', 'b']);
        const money = await tx.get<Counter>('money', 'm');
        const before = statements.length;
        const [a, b] = await Promise.all([tx.get<Counter>('counters', 'a'), tx.get<Counter>('counters', 'b')]);
        expect(statements.length).toBe(before);
        await tx.update<Counter>('money', 'm', { n: money!.n - 3 });
        await tx.update<Counter>('counters', 'a', { n: a!.n + 1 });
        await tx.update<Counter>('counters', 'b', { n: b!.n + 1 });
      }),
    );
    // BEGIN with the lock and both reads; the writes with COMMIT.
    expect(statements.filter((text) => text.includes('agent_services_batch'))).toHaveLength(2);
    expect(await store.view.get('money', 'm')).toEqual({ n: 97 });
    expect(await store.view.get('counters', 'a')).toEqual({ n: 2 });
  });

  /** Two processes' stores on one seeded database. */
  async function twoSeeded(): Promise<[PostgresStore, PostgresStore]> {
    const url = await freshDatabase();
    const { store: a } = await logged(url);
    const { store: b } = await logged(url);
    await seed(a);
    return [a, b];
  }

  it('runs a unit again when a record it read ahead changed before its write', async () => {
    const [a, b] = await twoSeeded();
    const runs = { count: 0 };
    await a.unit(() =>
      a.transaction(async (tx) => {
        runs.count++;
        tx.prefetch?.('counters', ['a']);
        await tx.lock('money', ['m']);
        await tx.get<Counter>('money', 'm');
        const counter = await tx.get<Counter>('counters', 'a');
        // Another process adds 10 after this unit read the counter ahead (first run only).
        if (runs.count === 1) await b.transaction(async (other) => other.update<Counter>('counters', 'a', { n: (await other.get<Counter>('counters', 'a'))!.n + 10 }));
        await tx.update<Counter>('counters', 'a', { n: counter!.n + 1 });
      }),
    );
    expect(runs.count).toBe(2);
    expect(await a.view.get('counters', 'a')).toEqual({ n: 12 });
  });

  it('answers a record read ahead and then locked as the locked read: its write does not conflict', async () => {
    const [a, b] = await twoSeeded();
    const runs = { count: 0 };
    await a.unit(() =>
      a.transaction(async (tx) => {
        runs.count++;
        tx.prefetch?.('money', ['m']);
        await tx.get<Counter>('counters', 'a');
        // Another process changes the record after it was read ahead, before this unit locks it.
        if (runs.count === 1) await b.transaction((other) => other.update<Counter>('money', 'm', { n: 50 }));
        await tx.lock('money', ['m']);
        const money = await tx.get<Counter>('money', 'm');
        await tx.update<Counter>('money', 'm', { n: money!.n - 1 });
      }),
    );
    expect(runs.count).toBe(1);
    expect(await a.view.get('money', 'm')).toEqual({ n: 49 });
  });

  it('answers a record read ahead that the unit wrote first as written', async () => {
    const { store } = await logged();
    await seed(store);
    const seen = await store.transaction(async (tx) => {
      tx.prefetch?.('counters', ['a']);
      await tx.update<Counter>('counters', 'a', { n: 50 });
      return tx.get<Counter>('counters', 'a');
    });
    expect(seen).toEqual({ n: 50 });
  });
  it('reads records outside units over the claims connection, together: none of them takes a statement of the main pool', async () => {
    const { store, statements } = await logged();
    await seed(store);
    statements.length = 0;
    const [a, b, none, claimed] = await Promise.all([
      store.view.get<Counter>('counters', 'a'),
      store.view.get<Counter>('counters', 'b'),
      store.view.get<Counter>('counters', 'none'),
      store.shared!.claimReading<Counter>('reads:1', 'counters', 'a'),
    ]);
    expect([a, b, none, claimed.record]).toEqual([{ n: 1 }, { n: 2 }, undefined, { n: 1 }]);
    await claimed.release?.();
    expect(statements).toEqual([]);
    // A write is seen by the next read.
    await store.transaction((tx) => tx.update<Counter>('counters', 'a', { n: 5 }));
    expect(await store.view.get<Counter>('counters', 'a')).toEqual({ n: 5 });
  });
});
