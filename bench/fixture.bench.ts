/**
 * `npm run bench -- fixture [--records N] [--samples N]`: a fresh test world from a fixture of N
 * store records (default 1,000) against building the same world from scratch (the floor every
 * test would pay without fixtures), with the ratio; then where a fresh world's time goes: making
 * a runtime, restoring the snapshot, and inside the restore the store import alone.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createRuntime, MemoryStore } from '../src/index.js';
import { createTestWorld, loadFixture, type TestWorld } from '../src/testing/index.js';

async function recordsOf(world: TestWorld<string>): Promise<number> {
  return Object.values((await world.runtime.sim.snapshot()).store.collections).reduce((sum, collection) => sum + collection.rows.length, 0);
}

/** Median of a sample, in milliseconds. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

async function timed(samples: number, run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  return median(times);
}

/** Runs the benchmark. */
export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { records: { type: 'string', default: '1000' }, samples: { type: 'string', default: '30' } } });
  const target = Number(values.records);
  const samples = Number(values.samples);

  // A shop with a history: agents plus book transfers (each send adds two ledger records and
  // their events). The first build counts the sends that reach the target number of records;
  // the timed builds make exactly that many.
  let sends = 0;
  const grow = async (world: TestWorld<'shop' | 'buyer'>, count: number) => {
    for (let i = 0; i < count; i++) await world.agents.buyer.wallet.send({ to: 'shop', amount: '0.01', asset: 'usd' });
  };
  const open = () => createTestWorld({ seed: 1, agents: { shop: { balances: { usd: '1000' } }, buyer: { balances: { usd: '1000000' } } } });
  const build = async () => {
    const world = await open();
    if (sends > 0) await grow(world, sends);
    else while ((await recordsOf(world)) < target) await grow(world, 1), sends++;
    return world;
  };
  const first = await loadFixture(build);
  const records = await recordsOf(first);
  const snapshot = await first.runtime.sim.snapshot();
  await first.close();
  console.log(`fixture: ${records} store records (${sends} sends), median of ${samples} runs each`);

  const worlds: TestWorld<string>[] = [];
  const builtMs = await timed(Math.max(3, Math.floor(samples / 5)), async () => worlds.push(await build()));
  await Promise.all(worlds.splice(0).map((world) => world.close()));
  const freshMs = await timed(samples, async () => worlds.push(await loadFixture(build)));
  await Promise.all(worlds.splice(0).map((world) => world.close()));

  const runtimeMs = await timed(samples, async () => (await createRuntime({ seed: 1 })).close());
  const restores: number[] = [];
  for (let i = 0; i < samples; i++) {
    const runtime = await createRuntime({ seed: 1 });
    const start = performance.now();
    await runtime.sim.restore(snapshot);
    restores.push(performance.now() - start);
    await runtime.close();
  }
  const restoreMs = median(restores);
  const importMs = await timed(samples, async () => new MemoryStore().import(snapshot.store as Parameters<MemoryStore['import']>[0]));

  console.log(`build from scratch:        ${builtMs.toFixed(2)} ms`);
  console.log(`fresh world from fixture:  ${freshMs.toFixed(2)} ms   (${(builtMs / freshMs).toFixed(1)}x faster than building; goal < 5 ms)`);
  console.log(`  of which a new runtime:  ${runtimeMs.toFixed(2)} ms`);
  console.log(`  of which the restore:    ${restoreMs.toFixed(2)} ms`);
  console.log(`    of which store import: ${importMs.toFixed(2)} ms`);
}
