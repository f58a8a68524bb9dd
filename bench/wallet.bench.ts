/**
 * `npm run bench -- wallet [--sends N]`: in-process book-transfer sends per second, and the cost
 * of one send and of one history page with 1,000 and with 100,000 existing records (the ratio
 * shows whether anything scans the whole history). Every call goes through the full in-process
 * client path: JSON round trip, dispatcher, zod validation, service, store transaction.
 */
import { performance } from 'node:perf_hooks';
import { createRuntime, type AgentClient, type Runtime } from '../src/index.js';

interface Pair {
  runtime: Runtime;
  aliceKey: string;
  alice: AgentClient;
  bob: AgentClient;
}

async function world(): Promise<Pair> {
  const runtime = await createRuntime({ seed: 1 });
  const sim = runtime.simClient();
  const a = await sim.createAgent({ name: 'alice', balances: { usd: '100000000', usdc: '100000000' } });
  const b = await sim.createAgent({ name: 'bob', balances: { usd: '100000000' } });
  return { runtime, aliceKey: a.api_key, alice: runtime.agent(a.api_key), bob: runtime.agent(b.api_key) };
}

/** Grows alice's history to `records` entries: mostly sends to bob, every third one a payment from bob. */
async function grow(pair: Pair, records: number): Promise<void> {
  for (let i = 3; i <= records; i++) {
    if (i % 3 === 0) await pair.bob.wallet.send({ to: 'alice', amount: '0.01', asset: 'usd' });
    else await pair.alice.wallet.send({ to: 'bob', amount: '0.01', asset: i % 3 === 1 ? 'usd' : 'usdc' });
  }
}

async function microseconds(count: number, call: (i: number) => Promise<unknown>): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < count; i++) await call(i);
  return ((performance.now() - start) * 1000) / count;
}

interface Costs {
  send: number;
  firstPage: number;
  dispatchedPage: number;
  filteredPage: number;
  deepPage: number;
}

async function costsAt(records: number, samples: number): Promise<Costs> {
  const pair = await world();
  await grow(pair, records);
  const middle = await pair.alice.wallet.listTransactions({ limit: 100 });
  let cursor = middle.next_cursor!;
  for (let i = 0; i < Math.floor(records / 200); i++) cursor = (await pair.alice.wallet.listTransactions({ limit: 100, cursor })).next_cursor ?? cursor;
  const costs: Costs = {
    firstPage: await microseconds(samples, () => pair.alice.wallet.listTransactions({ limit: 20 })),
    dispatchedPage: await microseconds(samples, () => pair.runtime.dispatch({ routeId: 'wallet.listTransactions', bearer: pair.aliceKey, query: { limit: '20' } })),
    filteredPage: await microseconds(samples, () => pair.alice.wallet.listTransactions({ limit: 20, asset: 'usd', direction: 'in' })),
    deepPage: await microseconds(samples, () => pair.alice.wallet.listTransactions({ limit: 20, cursor })),
    send: await microseconds(samples, () => pair.alice.wallet.send({ to: 'bob', amount: '0.01', asset: 'usd' })),
  };
  return costs;
}

export async function run(args: string[]): Promise<void> {
  const flag = args.indexOf('--sends');
  const sends = flag >= 0 ? Number(args[flag + 1]) : 20_000;
  const warm = await world();
  await grow(warm, 5_000);
  let warmCursor: string | undefined;
  for (let i = 0; i < 2_000; i++) {
    const page = await warm.alice.wallet.listTransactions({ limit: 20, ...(i % 2 ? { asset: 'usd' as const, direction: 'in' as const } : {}), ...(warmCursor && i % 2 === 0 ? { cursor: warmCursor } : {}) });
    if (i % 2 === 0) warmCursor = page.next_cursor ?? undefined;
  }

  // Other processes share the machine's two cores, so each rate is taken over several rounds and
  // the best and the median are printed.
  const rounds = 5;
  const perRound = Math.max(1, Math.floor(sends / rounds));
  const pair = await world();
  const sequential: number[] = [];
  const concurrent: number[] = [];
  const batch = 64;
  for (let round = 0; round < rounds; round++) {
    let start = performance.now();
    for (let i = 0; i < perRound; i++) await pair.alice.wallet.send({ to: 'bob', amount: '0.01', asset: 'usd' });
    sequential.push(perRound / ((performance.now() - start) / 1000));
    start = performance.now();
    for (let i = 0; i < perRound; i += batch) {
      await Promise.all(Array.from({ length: Math.min(batch, perRound - i) }, () => pair.alice.wallet.send({ to: 'bob', amount: '0.01', asset: 'usd' })));
    }
    concurrent.push(perRound / ((performance.now() - start) / 1000));
  }
  const summary = (rates: number[]) => {
    const sorted = [...rates].sort((a, b) => a - b);
    const format = (rate: number) => Math.round(rate).toLocaleString('en-US');
    return `best ${format(sorted[sorted.length - 1]!)} sends/s, median ${format(sorted[Math.floor(sorted.length / 2)]!)} sends/s`;
  };
  console.log(`wallet: in-process book-transfer sends, one at a time (${rounds} rounds of ${perRound}): ${summary(sequential)} (target >= 20,000)`);
  console.log(`wallet: in-process book-transfer sends, ${batch} in flight (${rounds} rounds of ${perRound}): ${summary(concurrent)}`);

  const samples = 2_000;
  const small = await costsAt(1_000, samples);
  const large = await costsAt(100_000, samples);
  const row = (name: string, key: keyof Costs) => `  ${name.padEnd(36)} ${small[key].toFixed(1).padStart(8)} µs ${large[key].toFixed(1).padStart(8)} µs   ${(large[key] / small[key]).toFixed(2)}x`;
  console.log(`wallet: cost of one call (mean of ${samples}), 1,000 vs 100,000 existing records (target ratio <= 1.5x)`);
  console.log(`  ${'call'.padEnd(36)} ${'1,000'.padStart(11)} ${'100,000'.padStart(11)}   ratio`);
  console.log(row('send (book transfer)', 'send'));
  console.log(row('history page (limit 20)', 'firstPage'));
  console.log(row('history page via runtime.dispatch', 'dispatchedPage'));
  console.log(row('history page, asset=usd direction=in', 'filteredPage'));
  console.log(row('history page in the middle (cursor)', 'deepPage'));
}
