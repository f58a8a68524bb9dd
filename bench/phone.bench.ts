/**
 * `npm run bench -- phone [--sends N]`
 *
 * 1. SMS sends per second in-process (`client.phone.sendSms` through the dispatcher, validation,
 *    segmentation, one store transaction with the event, the reputation counter and the durable
 *    lifecycle job), beside a floor measured in the same run: `client.phone.getNumber`, the
 *    cheapest authenticated call (dispatcher, key lookup, one read), so the ratio says what a send
 *    costs above the machinery every call pays.
 * 2. The cost of one send, one poll, one list page and one lifecycle (queued to delivered, the
 *    clock advanced 4 s) with 1,000 and with 100,000 messages already stored. Target: the
 *    100,000 cost within 1.5x of the 1,000 cost.
 */
import { performance } from 'node:perf_hooks';
import { createRuntime, type AgentClient, type Runtime, type SimClient } from '../src/index.js';

const OUTSIDE = '+14155552671';
const BODY = 'Your verification code is 482913. It expires in 10 minutes.';

interface World {
  runtime: Runtime;
  sim: SimClient;
  alice: AgentClient;
}

async function world(): Promise<World> {
  const runtime = await createRuntime({ seed: 1 });
  const sim = runtime.simClient();
  const created = await sim.createAgent({ name: 'alice' });
  return { runtime, sim, alice: runtime.agent(created.api_key) };
}

/** Sends `count` messages in batches and lets every lifecycle finish. */
async function grow(target: World, count: number): Promise<void> {
  const batch = 256;
  for (let i = 0; i < count; i += batch) {
    await Promise.all(Array.from({ length: Math.min(batch, count - i) }, (_, j) => target.alice.phone.sendSms({ to: OUTSIDE, body: `${BODY} #${i + j}` })));
    if ((i / batch) % 40 === 39) await target.sim.advanceClock({ seconds: 5 });
  }
  await target.sim.advanceClock({ seconds: 5 });
}

/** Mean microseconds of `fn` over `samples` runs. */
async function mean(samples: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < samples; i++) await fn(i);
  return ((performance.now() - start) * 1000) / samples;
}

interface Costs {
  send: number;
  poll: number;
  page: number;
  lifecycle: number;
}

async function costsAt(stored: number, samples: number): Promise<Costs> {
  const target = await world();
  await grow(target, stored);
  const { alice, sim } = target;
  // The same calls once untimed first, so neither size is measured on colder code than the other.
  for (let i = 0; i < samples / 4; i++) {
    const warm = await alice.phone.sendSms({ to: OUTSIDE, body: BODY });
    await alice.phone.getSms(warm.message_id);
    await alice.phone.listSms({ limit: 20 });
  }
  await sim.advanceClock({ seconds: 5 });
  const ids: string[] = [];
  const send = await mean(samples, async (i) => ids.push((await alice.phone.sendSms({ to: OUTSIDE, body: `${BODY} ${i}` })).message_id));
  await sim.advanceClock({ seconds: 5 });
  const poll = await mean(samples, (i) => alice.phone.getSms(ids[i]!));
  const page = await mean(samples, () => alice.phone.listSms({ limit: 20 }));
  const lifecycleSamples = Math.max(1, Math.floor(samples / 4));
  const lifecycle = await mean(lifecycleSamples, async () => {
    await alice.phone.sendSms({ to: OUTSIDE, body: BODY });
    await sim.advanceClock({ seconds: 4 });
  });
  await target.runtime.close();
  return { send, poll, page, lifecycle };
}

export async function run(args: string[]): Promise<void> {
  const flag = args.indexOf('--sends');
  const sends = flag >= 0 ? Number(args[flag + 1]) : 20_000;

  // Other processes share the machine's cores: each rate is taken over several rounds, best and median printed.
  const rounds = 5;
  const perRound = Math.max(1, Math.floor(sends / rounds));
  const target = await world();
  await grow(target, 2_000);
  const sendRates: number[] = [];
  const floorRates: number[] = [];
  for (let round = 0; round < rounds; round++) {
    let start = performance.now();
    for (let i = 0; i < perRound; i++) await target.alice.phone.getNumber();
    floorRates.push(perRound / ((performance.now() - start) / 1000));
    start = performance.now();
    for (let i = 0; i < perRound; i++) await target.alice.phone.sendSms({ to: OUTSIDE, body: BODY });
    sendRates.push(perRound / ((performance.now() - start) / 1000));
    await target.sim.advanceClock({ seconds: 5 });
  }
  await target.runtime.close();
  const sorted = (rates: number[]) => [...rates].sort((a, b) => a - b);
  const format = (rate: number) => Math.round(rate).toLocaleString('en-US');
  const best = (rates: number[]) => sorted(rates)[rates.length - 1]!;
  const median = (rates: number[]) => sorted(rates)[Math.floor(rates.length / 2)]!;
  console.log(`phone: in-process SMS sends, one at a time (${rounds} rounds of ${perRound}): best ${format(best(sendRates))}/s, median ${format(median(sendRates))}/s`);
  console.log(`phone: floor, in-process GET /v1/phone (same rounds): best ${format(best(floorRates))}/s, median ${format(median(floorRates))}/s`);
  console.log(`phone: a send costs ${(median(floorRates) / median(sendRates)).toFixed(2)}x the cheapest authenticated call (medians)`);

  const samples = 2_000;
  const small = await costsAt(1_000, samples);
  const large = await costsAt(100_000, samples);
  const row = (name: string, key: keyof Costs) => `  ${name.padEnd(40)} ${small[key].toFixed(1).padStart(8)} µs ${large[key].toFixed(1).padStart(8)} µs   ${(large[key] / small[key]).toFixed(2)}x`;
  console.log(`phone: cost of one call (mean of ${samples}; lifecycle of ${samples / 4}), 1,000 vs 100,000 stored messages (target ratio <= 1.5x)`);
  console.log(`  ${'call'.padEnd(40)} ${'1,000'.padStart(11)} ${'100,000'.padStart(11)}   ratio`);
  console.log(row('send (POST /v1/phone/sms)', 'send'));
  console.log(row('poll (GET /v1/phone/sms/{id})', 'poll'));
  console.log(row('list page (GET /v1/phone/sms, limit 20)', 'page'));
  console.log(row('send + lifecycle to delivered (4 s)', 'lifecycle'));
}
