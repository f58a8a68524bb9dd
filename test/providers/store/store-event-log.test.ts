// The event log kept in a store, over every store: numbering, delivery to listeners and append
// hooks; on PostgreSQL also two processes (two stores on one database) appending at once.
import postgres from 'postgres';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeAfter } from '../../support/close-after.js';
import type { AppendedEvent, NewEvent, ServiceEvent } from '../../../src/core/ports/event-log.js';
import type { Store } from '../../../src/core/ports/store.js';
import { StoreEventLog } from '../../../src/providers/events/store-event-log.js';
import { PostgresStore } from '../../../src/providers/store/postgres/postgres-store.js';
import { lockKey } from '../../../src/providers/store/postgres/record-keys.js';
import { numberSpace, ORDER } from '../../../src/providers/store/postgres/settled-positions.js';
import { SimClock } from '../../../src/sim/sim-clock.js';
import { freshDatabase, postgresSkipReason } from '../../support/postgres.js';
import { STORE_KINDS } from './store-kinds.js';

/** The i-th event of a test. */
function event(i: number): NewEvent {
  return { type: 'agent.updated', agent_id: 'agt_test', data: { fields: [`f${i}`] } };
}

/** Which event a delivered or stored event is (its `f<i>` field). */
function indexOf(delivered: Pick<ServiceEvent, 'data'>): number {
  return Number(String((delivered.data.fields as string[])[0]).slice(1));
}

/** Collects what a log hands to its listeners; `reached(n)` resolves once n events arrived. */
function listen(log: StoreEventLog) {
  const seen: ServiceEvent[] = [];
  let waiting: { count: number; resolve: () => void } | undefined;
  log.subscribe((delivered) => {
    seen.push(delivered);
    if (waiting && seen.length >= waiting.count) waiting.resolve();
  });
  return {
    seen,
    reached: (count: number) => (seen.length >= count ? Promise.resolve() : new Promise<void>((resolve) => (waiting = { count, resolve }))),
  };
}

describe.each(STORE_KINDS)('StoreEventLog over $name', (kind) => {
  afterEach(() => kind.cleanup());

  it('numbers the events of a unit in append order, delivers each once in order, and commits hook writes with them', async () => {
    const store = await kind.create();
    const log = new StoreEventLog(store, new SimClock());
    const hooked: AppendedEvent[] = [];
    log.onAppend(async (tx, appended) => {
      hooked.push(appended);
      await tx.insert('hooked', `h${indexOf(appended)}`, { at: appended.at });
    });
    const listener = listen(log);
    await store.unit(async () => {
      await store.transaction(async (tx) => {
        await log.append(tx, event(1));
        await log.append(tx, event(2));
      });
      await store.transaction((tx) => log.append(tx, event(3)));
    });
    await store.transaction(async (tx) => {
      await log.append(tx, event(4));
      await log.append(tx, event(5));
    });
    // A failed transaction's events are neither stored, numbered in the log, nor delivered.
    await expect(
      store.transaction(async (tx) => {
        await log.append(tx, event(6));
        throw new Error('402');
      }),
    ).rejects.toThrow('402');
    await store.transaction((tx) => log.append(tx, event(7)));
    await listener.reached(6);

    const stored = await log.after(0, 100);
    expect(stored.map(indexOf)).toEqual([1, 2, 3, 4, 5, 7]);
    const seqs = stored.map((entry) => entry.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    if (kind.alone) expect(seqs).toEqual([1, 2, 3, 4, 5, 6]);
    else expect(seqs.slice(0, 5)).toEqual([1, 2, 3, 4, 5]); // one commit's events follow on from each other
    expect(listener.seen).toEqual(stored);
    expect(await store.view.count('hooked')).toBe(6);
    expect(hooked.map(indexOf)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // A shared store runs the hooks before the events are numbered.
    if (!kind.alone) expect(hooked.some((appended) => 'seq' in appended)).toBe(false);
  });

  it('appends several events in one call exactly as separate appends would, an event a hook appends included', async () => {
    /** What the log holds after events 1 and 2 are appended by `appendTwo`, a hook appending event 9 when it sees event 1. */
    const outcome = async (appendTwo: (log: StoreEventLog, tx: Parameters<StoreEventLog['append']>[0]) => Promise<void>) => {
      const store = await kind.create();
      const log = new StoreEventLog(store, new SimClock());
      const hooked: number[] = [];
      log.onAppend(async (tx, appended) => {
        hooked.push(indexOf(appended));
        await tx.insert('hooked', `h${indexOf(appended)}`, { at: appended.at });
        if (indexOf(appended) === 1) await log.append(tx, event(9));
      });
      const listener = listen(log);
      await store.transaction((tx) => appendTwo(log, tx));
      await listener.reached(3);
      const stored = await log.after(0, 100);
      expect(listener.seen).toEqual(stored);
      return { events: stored.map((entry) => [indexOf(entry), entry.seq]), hooked, hookRows: (await store.export()).collections.hooked!.rows.map(([id, , position]) => [id, position]) };
    };
    const separate = await outcome(async (log, tx) => {
      await log.append(tx, event(1));
      await log.append(tx, event(2));
    });
    const together = await outcome((log, tx) => log.appendAll(tx, [event(1), event(2)]));
    expect(together).toEqual(separate);
    expect(together.hooked).toEqual([1, 9, 2]);
    // Numbered at each insert on the stores that run alone: the hook's event comes between.
    if (kind.alone)
      expect(together.events).toEqual([
        [1, 1],
        [9, 2],
        [2, 3],
      ]);
  });
  it('hands a listener of the events committed here each event this process commits, in order', async () => {
    const store = await kind.create();
    const log = new StoreEventLog(store, new SimClock());
    const here: number[] = [];
    log.subscribe((delivered) => here.push(indexOf(delivered)), { committedHere: true });
    await store.transaction((tx) => log.appendAll(tx, [event(1), event(2)]));
    await store.transaction((tx) => log.append(tx, event(3)));
    expect(here).toEqual([1, 2, 3]);
  });
});

describe.skipIf(postgresSkipReason() !== null)('StoreEventLog over two PostgreSQL stores on one database (two processes)', () => {
  const keep = closeAfter<Store>();

  /**
   * Another process numbering an event at its COMMIT, as the batch function's `nb` op does: the
   * order lock shared, the number, the number's own lock; the event is inserted when `insert` is
   * called, and the transaction ends with `finish` (commit) or `abandon` (rollback).
   */
  async function holdNumber(url: string) {
    const raw = postgres(url, { onnotice: () => {}, max: 1 });
    const conn = await raw.reserve();
    await conn`BEGIN`;
    await conn`SELECT pg_advisory_xact_lock_shared(${String(lockKey('events', ORDER))}::bigint)`;
    const [taken] = await conn`SELECT nextval('agent_services_pos_events') AS n`;
    const seq = Number(taken!.n);
    await conn`SELECT pg_advisory_xact_lock_shared(${numberSpace('events')}::integer, ${seq}::integer)`;
    const end = async (command: 'COMMIT' | 'ROLLBACK') => {
      await conn.unsafe(command);
      conn.release();
      await raw.end({ timeout: 1 });
    };
    return {
      seq,
      insert: (i: number) =>
        conn`INSERT INTO agent_services_records (collection, id, part, position, record)
          VALUES ('events', ${String(seq)}, '', ${seq}, ${JSON.stringify({ seq, type: 'agent.updated', agent_id: 'agt_test', at: '2026-01-01T00:00:00.000Z', data: { fields: [`f${i}`] } })})`,
      finish: () => end('COMMIT'),
      abandon: () => end('ROLLBACK'),
    };
  }

  /** Two stores on a fresh database, as two processes would open it. */
  async function twoProcesses(): Promise<{ url: string; here: PostgresStore; there: PostgresStore }> {
    const url = await freshDatabase();
    const here = keep(await PostgresStore.open(url, { maxConnections: 5 }));
    const there = keep(await PostgresStore.open(url, { maxConnections: 5 }));
    return { url, here, there };
  }

  it('starts a first listener below a number another process holds and has not committed yet', async () => {
    const { url, here, there } = await twoProcesses();
    const remote = new StoreEventLog(there, new SimClock());
    await there.transaction((tx) => remote.append(tx, event(1)));
    const held = await holdNumber(url);
    // A later number, committed while the first is still held.
    await there.transaction((tx) => remote.append(tx, event(3)));
    const log = new StoreEventLog(here, new SimClock());
    const listener = listen(log);
    // Where delivery starts is read while that number is held: just below it.
    expect(await (log as unknown as { delivered: Promise<number> }).delivered).toBe(held.seq - 1);
    await held.insert(2);
    await held.finish();
    await there.transaction((tx) => remote.append(tx, event(4)));
    await listener.reached(3);
    expect(listener.seen.map(indexOf)).toEqual([2, 3, 4]);
  });

  it('reads an event committed past a number still held only once that number is settled, and past a number given up', async () => {
    const { url, here, there } = await twoProcesses();
    const log = new StoreEventLog(here, new SimClock());
    const listener = listen(log);
    await (log as unknown as { delivered: Promise<number> }).delivered;
    const remote = new StoreEventLog(there, new SimClock());
    await there.transaction((tx) => remote.append(tx, event(1)));
    await listener.reached(1);
    const held = await holdNumber(url);
    await there.transaction((tx) => remote.append(tx, event(3)));
    // Committed, numbered after the held one: not read while the smaller number may still come.
    expect((await log.after(0, 10)).map(indexOf)).toEqual([1]);
    expect(await here.shared!.settledPosition('events')).toBe(held.seq - 1);
    await held.insert(2);
    await held.finish();
    expect((await log.after(0, 10)).map(indexOf)).toEqual([1, 2, 3]);
    await listener.reached(3);
    // A number given up (rolled back) holds nothing back once its transaction ended.
    const abandoned = await holdNumber(url);
    await there.transaction((tx) => remote.append(tx, event(5)));
    expect((await log.after(0, 10)).map(indexOf)).toEqual([1, 2, 3]);
    await abandoned.abandon();
    await listener.reached(4);
    expect(listener.seen.map(indexOf)).toEqual([1, 2, 3, 5]);
    expect(listener.seen).toEqual(await log.after(0, 10));
    // Each delivered once, in seq order.
    const seqs = listener.seen.map((delivered) => delivered.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });

  it('hands every event of both to the listeners of each, once and in seq order, while both append at once', async () => {
    const url = await freshDatabase();
    const stores = [keep(await PostgresStore.open(url, { maxConnections: 5 })), keep(await PostgresStore.open(url, { maxConnections: 5 }))];
    const logs = stores.map((store) => new StoreEventLog(store, new SimClock()));
    const listeners = logs.map(listen);
    // A first listener hears what is committed once where it starts is read: wait for that read.
    await Promise.all(logs.map((log) => (log as unknown as { delivered: Promise<number> }).delivered));
    const perStore = 30;
    await Promise.all(
      stores.map(async (store, s) => {
        const log = logs[s]!;
        await Promise.all(
          Array.from({ length: perStore / 2 }, (_, k) =>
            store.unit(async () => {
              // Two events of one commit, in two transactions of the unit.
              await store.transaction((tx) => log.append(tx, event(s * 1000 + 2 * k)));
              await store.transaction((tx) => log.append(tx, event(s * 1000 + 2 * k + 1)));
            }),
          ),
        );
      }),
    );
    await Promise.all(listeners.map((listener) => listener.reached(2 * perStore)));
    const stored = await logs[0]!.after(0, 1000);
    expect(stored).toHaveLength(2 * perStore);
    const seqs = stored.map((entry) => entry.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    for (const listener of listeners) expect(listener.seen).toEqual(stored);
    // A unit's two events are numbered in the order appended (another process's may come between).
    const seqOf = new Map(stored.map((entry) => [indexOf(entry), entry.seq]));
    for (const s of [0, 1]) for (let k = 0; k < perStore / 2; k++) expect(seqOf.get(s * 1000 + 2 * k + 1)!).toBeGreaterThan(seqOf.get(s * 1000 + 2 * k)!);
  });

  it('keeps delivering after a read of the store fails: the first position, then a page after another process committed', async () => {
    const url = await freshDatabase();
    const stores = [keep(await PostgresStore.open(url, { maxConnections: 5 })), keep(await PostgresStore.open(url, { maxConnections: 5 }))];
    const [here, there] = stores as [PostgresStore, PostgresStore];
    // The database is away when the log reads where to start, and again when it reads the page
    // another process's commit announced; nothing else is committed afterwards.
    const settled = vi.spyOn(here.shared!, 'settledPosition').mockRejectedValueOnce(new Error('connection lost'));
    const log = new StoreEventLog(here, new SimClock());
    const listener = listen(log);
    // The read that failed is where delivery starts: the events' settled position.
    expect(settled.mock.calls[0]).toEqual(['events']);
    await here.transaction((tx) => log.append(tx, event(1)));
    await listener.reached(1);
    vi.spyOn(here.view, 'page').mockRejectedValueOnce(new Error('connection lost'));
    const remote = new StoreEventLog(there, new SimClock());
    await there.transaction((tx) => remote.append(tx, event(2)));
    await listener.reached(2);
    expect(listener.seen.map(indexOf)).toEqual([1, 2]);
    expect(listener.seen).toEqual(await log.after(0, 10));
  });

  it('hands each event once to the other listeners while one listener throws', async () => {
    const url = await freshDatabase();
    const stores = [keep(await PostgresStore.open(url, { maxConnections: 5 })), keep(await PostgresStore.open(url, { maxConnections: 5 }))];
    const [here, there] = stores as [PostgresStore, PostgresStore];
    const reported = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const log = new StoreEventLog(here, new SimClock());
    log.subscribe(() => {
      throw new Error('listener broke');
    });
    const listener = listen(log);
    // Another process's events, committed once where delivery starts is read: read back by the pump.
    await (log as unknown as { delivered: Promise<number> }).delivered;
    const remote = new StoreEventLog(there, new SimClock());
    await there.transaction((tx) => remote.append(tx, event(1)));
    await listener.reached(1);
    await there.transaction((tx) => remote.append(tx, event(2)));
    await listener.reached(2);
    expect(listener.seen.map(indexOf)).toEqual([1, 2]);
    expect(reported.mock.calls.some(([text]) => String(text).includes('listener broke'))).toBe(true);
    reported.mockRestore();
  });
  it("reads no other process's events while only listeners of its own commits follow, and starts where the log ends for the first listener of every event", async () => {
    const url = await freshDatabase();
    const statements: string[] = [];
    const here = keep(await PostgresStore.open(url, { maxConnections: 5, onStatement: (text) => statements.push(text) }));
    const there = keep(await PostgresStore.open(url, { maxConnections: 5 }));
    const log = new StoreEventLog(here, new SimClock());
    const mine: number[] = [];
    log.subscribe((delivered) => mine.push(indexOf(delivered)), { committedHere: true });
    const remote = new StoreEventLog(there, new SimClock());
    // Told of the other process's commit after the log (registered first) was.
    const heard = new Promise<void>((resolve) => here.shared!.onRemoteCommit(() => resolve(), { collections: ['events'] }));
    await there.transaction((tx) => remote.append(tx, event(1)));
    await here.transaction((tx) => log.append(tx, event(2)));
    await heard;
    // A read of this process behind anything the log would have sent.
    await here.view.get('nothing', 'here');
    expect(mine).toEqual([2]);
    // No page of events was read (a page read alone is the statement that answers positions).
    expect(statements.filter((text) => text.includes('position AS n'))).toEqual([]);
    // The first listener of every event hears what is committed once where it starts is read
    // (as it subscribes: an event committed meanwhile may fall before it), never what was
    // committed before.
    const all: number[] = [];
    const fourth = new Promise<void>((resolve) =>
      log.subscribe((delivered) => {
        all.push(indexOf(delivered));
        if (indexOf(delivered) === 4) resolve();
      }),
    );
    await (log as unknown as { delivered: Promise<number> }).delivered;
    await there.transaction((tx) => remote.append(tx, event(3)));
    await there.transaction((tx) => remote.append(tx, event(4)));
    await fourth;
    expect(all.every((index) => index >= 3)).toBe(true);
    expect(all.at(-1)).toBe(4);
    expect(mine).toEqual([2]);
  });
});
