/**
 * `npm run bench -- store [--sends N] [--clients C] [--rounds R] [--only snapshots]`: the durable store against its in-memory floor.
 *
 * - durable keyed book-transfer sends per second in-process (group commit, each answered after
 *   its fsync) with 1,000 and with 100,000 stored records, and the in-memory figure beside them;
 * - bytes written to disk per send (from /proc/self/io) and database growth per 1,000 sends;
 * - open (restart) time of a 100,000-record world, against restoring the same world in memory;
 * - snapshot + restore of a 10,000- and a 100,000-record world, on SQLite and in memory: on SQLite
 *   both the restore of the snapshot imported last (a fixture: only what was written since is
 *   rewritten) and a whole import (a snapshot read back from the table after a write, then restored).
 *
 * Wall-clock figures are beside CPU-time ones: on a shared, loaded machine the process gets a
 * fraction of a core and only CPU time stays comparable between runs.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createRuntime, type Runtime } from '../src/index.js';
import type { Store } from '../src/core/ports/store.js';
import { MemoryStore } from '../src/providers/store/memory-store.js';
import { SqliteStore } from '../src/providers/store/sqlite-store.js';

const AGENTS = ['ann', 'ben', 'cat', 'dan', 'eve', 'fay', 'gus', 'hal'];

/** A stored record of a typical size (a wallet transaction is about this). */
function filler(i: number) {
  return {
    id: `txn_${i.toString(36).padStart(24, '0')}`,
    direction: 'out',
    amount: '12.50',
    asset: 'usd',
    to: 'ben.agents.test',
    from: 'ann.agents.test',
    memo: `filler record ${i}`,
    status: 'confirmed',
    network: null,
    fee: { amount: '0.00', asset: 'usd' },
    created_at: '2026-01-01T00:00:00.000Z',
  };
}

/** Adds `count` records in large transactions, spread over the agents' partitions. */
async function fill(store: Store, count: number): Promise<void> {
  for (let done = 0; done < count; ) {
    const batch = Math.min(10_000, count - done);
    await store.transaction(async (tx) => {
      for (let i = done; i < done + batch; i++) await tx.insert('bench_filler', `f${i}`, filler(i), AGENTS[i % AGENTS.length]);
    });
    done += batch;
  }
}

async function recordCount(runtime: Runtime): Promise<number> {
  return Object.values((await runtime.sim.snapshot()).store.collections).reduce((sum, collection) => sum + collection.rows.length, 0);
}

async function world(store: Store): Promise<{ runtime: Runtime; keys: string[] }> {
  const runtime = await createRuntime({ seed: 1, store });
  const keys: string[] = [];
  for (const name of AGENTS) keys.push((await runtime.createAgent({ name, balances: { usd: '100000000' } } as never)).api_key);
  return { runtime, keys };
}

/** CPU time (user + system) of the last {@link sendRate} per send, in microseconds: steady on a loaded machine. */
let lastCpuPerSend = 0;

/** `sends` keyed book transfers from `clients` concurrent in-process callers; sends per second. */
async function sendRate(runtime: Runtime, keys: string[], sends: number, clients: number, tag: string): Promise<number> {
  let next = 0;
  let failures = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = next++; i < sends; i = next++) {
        const from = i % keys.length;
        const result = await runtime.dispatch({
          routeId: 'wallet.send',
          bearer: keys[from]!,
          idempotencyKey: `${tag}-${i}`,
          body: { to: AGENTS[(from + 1) % AGENTS.length], amount: '0.01', asset: 'usd' },
        });
        if (result.status !== 201) failures++;
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  lastCpuPerSend = (used.user + used.system) / sends;
  if (failures > 0) throw new Error(`${failures} sends failed`);
  return sends / seconds;
}

function bytesWritten(): number {
  try {
    return Number(/write_bytes:\s+(\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}

/** CPU time (user + system) since `since`, in ms. */
function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

function ms(start: number): number {
  return performance.now() - start;
}

/** The middle value (the upper one of an even count). */
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { sends: { type: 'string', default: '4000' }, clients: { type: 'string', default: '64' }, rounds: { type: 'string', default: '5' }, only: { type: 'string' } } });
  const sends = Number(values.sends);
  const rounds = Number(values.rounds);
  const clients = Number(values.clients);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'store-bench-'));
  try {
    // `--only snapshots` skips the send rates.
    const rates: Record<number, { sqlite: number; memory: number }> = {};
    if (values.only !== 'snapshots') console.log(`durable sends: ${sends} keyed book transfers from ${clients} concurrent in-process callers`);
    for (const records of values.only === 'snapshots' ? [] : [1_000, 100_000]) {
      const memoryStore = new MemoryStore();
      const memory = await world(memoryStore);
      await fill(memoryStore, records - (await recordCount(memory.runtime)));
      await sendRate(memory.runtime, memory.keys, 500, clients, 'warm');
      const memoryRate = await sendRate(memory.runtime, memory.keys, sends, clients, 'run');
      const memoryCpu = lastCpuPerSend;

      const file = path.join(dir, `sends-${records}.db`);
      const store = SqliteStore.open(file);
      const durable = await world(store);
      await fill(store, records - (await recordCount(durable.runtime)));
      await sendRate(durable.runtime, durable.keys, 500, clients, 'warm');
      const sizeBefore = store.sizes().pageBytes;
      const written = bytesWritten();
      const sqliteRate = await sendRate(durable.runtime, durable.keys, sends, clients, 'run');
      const sqliteCpu = lastCpuPerSend;
      const perSend = (bytesWritten() - written) / sends;
      const growth = ((store.sizes().pageBytes - sizeBefore) / sends) * 1000;
      rates[records] = { sqlite: sqliteRate, memory: memoryRate };
      console.log(
        `  ${fmt(records)} records: SQLite ${fmt(sqliteRate)} sends/s, memory ${fmt(memoryRate)} sends/s (ratio ${fmt(memoryRate / sqliteRate, 1)}x); ` +
          `CPU ${fmt(sqliteCpu)} µs per send on SQLite, ${fmt(memoryCpu)} µs in memory; ` +
          `${fmt(perSend)} bytes written per send, database +${fmt(growth / 1024, 1)} KiB per 1,000 sends`,
      );
      await durable.runtime.close();
    }
    if (values.only !== 'snapshots') console.log(`  100,000 vs 1,000 records: SQLite ${fmt(rates[1_000]!.sqlite / rates[100_000]!.sqlite, 2)}x slower (goal <= 1.5x)`);

    for (const records of [10_000, 100_000]) {
      const memoryStore = new MemoryStore();
      const memory = await world(memoryStore);
      await fill(memoryStore, records - (await recordCount(memory.runtime)));
      // One warm-up round per store (as the send rates have): the first round of a process also
      // measures compiling the code, and for SQLite growing a new file (1.5-2x slower).
      await memory.runtime.sim.restore(await memory.runtime.sim.snapshot());
      const snapshot = await memory.runtime.sim.snapshot();
      const text = JSON.stringify(snapshot);

      const file = path.join(dir, `snapshot-${records}.db`);
      const store = SqliteStore.open(file);
      const durable = await createRuntime({ seed: 1, store });
      const coldStart = performance.now();
      await durable.sim.restore(snapshot);
      await durable.sim.snapshot();
      const cold = ms(coldStart);

      // Every figure is the median of `rounds` rounds: one sample on a shared machine is as much
      // the neighbours' work as ours.
      const figures = new Map<string, number[]>();
      const keep = (name: string, value: number) => figures.set(name, [...(figures.get(name) ?? []), value]);
      for (let round = 0; round < rounds; round++) {
        let cpu = process.cpuUsage();
        let start = performance.now();
        const taken = await memory.runtime.sim.snapshot();
        keep('memorySnapshot', ms(start));
        start = performance.now();
        await memory.runtime.sim.restore(taken);
        keep('memoryRestore', ms(start));
        keep('memoryCpu', cpuMs(cpu));
        // A snapshot that arrives as JSON text (POST /_sim/restore): parse + restore, fresh objects.
        start = performance.now();
        await memory.runtime.sim.restore(JSON.parse(text));
        keep('memoryRestoreParsed', ms(start));

        // A fixture: one write, then the same snapshot restored again (and the snapshot it leaves).
        await store.transaction((tx) => tx.insert('bench_filler', `warm-up-${round}`, filler(records), AGENTS[0]));
        cpu = process.cpuUsage();
        start = performance.now();
        await durable.sim.restore(snapshot);
        keep('sqliteRestore', ms(start));
        start = performance.now();
        await durable.sim.snapshot();
        keep('sqliteSnapshot', ms(start));
        keep('sqliteCpu', cpuMs(cpu));
      }
      for (let round = 0; round < rounds; round++) {
        // A snapshot after a write, which drops the world the store kept: every row is read and
        // parsed. Restoring it (snapshot, work, restore) is a whole import: its records are new objects.
        await store.transaction((tx) => tx.insert('bench_filler', `after-restore-${round}`, filler(records), AGENTS[0]));
        let start = performance.now();
        const own = await durable.sim.snapshot();
        keep('sqliteColdSnapshot', ms(start));
        await store.transaction((tx) => tx.remove('bench_filler', `after-restore-${round}`));
        start = performance.now();
        await durable.sim.restore(own);
        keep('sqliteOwnRestore', ms(start));
      }
      const m = (name: string) => median(figures.get(name)!);
      const total = (prefix: 'memory' | 'sqlite') => median(figures.get(`${prefix}Snapshot`)!.map((value, i) => value + figures.get(`${prefix}Restore`)![i]!));
      console.log(
        `snapshot + restore, ${fmt(records)} records (median of ${rounds}): memory ${fmt(total('memory'), 1)} ms (snapshot ${fmt(m('memorySnapshot'), 1)}, restore ${fmt(m('memoryRestore'), 1)}; ` +
          `restore of parsed JSON ${fmt(m('memoryRestoreParsed'), 1)}); CPU time ${fmt(m('memoryCpu'), 1)} ms`,
      );
      console.log(
        `  SQLite, restoring the snapshot imported last after one write (a fixture; only what was written since is rewritten): ${fmt(total('sqlite'), 1)} ms ` +
          `(snapshot ${fmt(m('sqliteSnapshot'), 1)}, restore ${fmt(m('sqliteRestore'), 1)}), CPU time ${fmt(m('sqliteCpu'), 1)} ms`,
      );
      console.log(
        `  SQLite, a whole import (a snapshot read back from the table, then restored): snapshot ${fmt(m('sqliteColdSnapshot'), 1)} ms (every row read and parsed), ` +
          `restore ${fmt(m('sqliteOwnRestore'), 1)} ms, together ${fmt(median(figures.get('sqliteColdSnapshot')!.map((value, i) => value + figures.get('sqliteOwnRestore')![i]!)), 1)} ms; ` +
          `first round of the process (warm-up) ${fmt(cold, 1)} ms`,
      );
      await durable.close();

      if (records === 100_000) {
        let start = performance.now();
        const reopened = await createRuntime({ seed: 1, store: SqliteStore.open(file) });
        const open = ms(start);
        await reopened.close();
        start = performance.now();
        const unchecked = await createRuntime({ seed: 1, store: SqliteStore.open(file, { skipCheck: true }) });
        const openUnchecked = ms(start);
        await unchecked.close();
        start = performance.now();
        const fresh = await createRuntime({ seed: 1 });
        await fresh.sim.restore(JSON.parse(text));
        const floor = ms(start);
        console.log(
          `open (restart) of a ${fmt(records)}-record world: ${fmt(open)} ms (${fmt(openUnchecked)} ms without quick_check); ` +
            `in-memory floor (new runtime + restore of the JSON) ${fmt(floor)} ms, ratio ${fmt(open / floor, 1)}x`,
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
