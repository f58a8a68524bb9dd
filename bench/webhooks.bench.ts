/**
 * `npm run bench -- webhooks [--deliveries N] [--rounds N]`
 *
 * Webhook deliveries per second to a local receiver, against a real floor measured in the same
 * run: a bare loop of POSTs of the same bytes to the same receiver.
 *
 * - The receiver is a plain node:http server on 127.0.0.1 in a worker thread (so the main thread,
 *   the thing measured, has its event loop to itself); it answers 200 to every POST.
 * - Floors: a bare loop of `N` POSTs of a ~400-byte JSON body with the same headers, each awaited
 *   before the next, through the same FetchHttpClient the service uses; and 32 such loops side by
 *   side (the service keeps at most 32 attempts in flight by default), the fair comparison.
 * - Webhooks: `N` wallet fundings in-process, each an event the agent's endpoint subscribes to;
 *   timed from the first funding until every delivery is recorded `delivered` (the event's
 *   transaction, the payload read, the signature, the POST and the outcome's transaction).
 * - For reference: the same fundings without any endpoint (what producing the events costs).
 * The best of `rounds` runs of each is reported, and the ratio webhooks / floor.
 */
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { createRuntime } from '../src/index.js';
import { FetchHttpClient } from '../src/providers/http/fetch-http-client.js';
import { signatureHeader } from '../src/core/webhooks/signature.js';
import { DEFAULT_CONCURRENCY } from '../src/core/webhooks/webhook-config.js';

function option(args: string[], name: string, fallback: string): string {
  const index = args.indexOf(`--${name}`);
  return index >= 0 && args[index + 1] !== undefined ? args[index + 1]! : fallback;
}

const RECEIVER = `
const { createServer } = require('node:http');
const { parentPort } = require('node:worker_threads');
let count = 0;
const server = createServer((request, response) => {
  request.on('data', () => {});
  request.on('end', () => { count++; response.statusCode = 200; response.end('ok'); });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (message) => { if (message === 'count') parentPort.postMessage({ count }); if (message === 'stop') server.close(() => process.exit(0)); });
`;

async function startReceiver(): Promise<{ url: string; stop(): Promise<void> }> {
  const worker = new Worker(RECEIVER, { eval: true });
  const port = await new Promise<number>((resolve) => worker.once('message', (message: { port: number }) => resolve(message.port)));
  return {
    url: `http://127.0.0.1:${port}/hook`,
    stop: async () => {
      worker.postMessage('stop');
      await new Promise((resolve) => worker.once('exit', resolve));
    },
  };
}

/** `n` bare POSTs from `lanes` loops running side by side (1: one POST after another). */
async function floor(url: string, n: number, lanes = 1): Promise<number> {
  const http = new FetchHttpClient();
  const body = JSON.stringify({
    id: 'evt_0000000000000000000000',
    type: 'wallet.transaction.received',
    created_at: '2026-01-01T00:00:00.000Z',
    agent_id: 'agt_000000000000000000000',
    data: {
      id: 'txn_000000000000000000000000',
      direction: 'in',
      amount: '1.00',
      asset: 'usd',
      to: 'alice.agents.test',
      from: 'sim:fund',
      memo: '',
      status: 'confirmed',
      network: null,
      fee: { amount: '0.00', asset: 'usd' },
      created_at: '2026-01-01T00:00:00.000Z',
    },
  });
  const started = performance.now();
  let sent = 0;
  const lane = async () => {
    while (sent < n) {
      sent++;
      await http.request({
        method: 'POST',
        url,
        headers: { 'Content-Type': 'application/json', 'Agent-Signature': signatureHeader('whsec_bench', 1_767_225_600, body), 'Agent-Webhook-Id': 'wh_bench', 'Agent-Delivery-Attempt': '1' },
        body,
        timeoutMs: 10_000,
      });
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return performance.now() - started;
}

async function webhooks(url: string | null, n: number): Promise<number> {
  const runtime = await createRuntime({ seed: 1 });
  const alice = await runtime.createAgent({ name: 'alice' });
  const sim = runtime.simClient();
  if (url) {
    const response = await runtime.fetch(
      new Request('http://bench.test/v1/webhooks', { method: 'POST', headers: { authorization: `Bearer ${alice.api_key}`, 'content-type': 'application/json' }, body: JSON.stringify({ url }) }),
    );
    if (response.status !== 201) throw new Error(`webhook registration answered ${response.status}`);
  }
  const started = performance.now();
  for (let i = 0; i < n; i++) await sim.fundWallet({ handle: 'alice', asset: 'usd', amount: '1.00' });
  if (url) {
    for (;;) {
      const answer = (await (await runtime.fetch(new Request('http://bench.test/_sim/webhooks/deliveries?status=delivered&limit=1'))).json()) as { deliveries: unknown[] };
      const pending = (await (await runtime.fetch(new Request('http://bench.test/_sim/webhooks/deliveries?status=pending&limit=1'))).json()) as { deliveries: Array<{ last_response_status: number | null }> };
      if (answer.deliveries.length > 0 && pending.deliveries.length === 0) break;
      if (pending.deliveries.some((delivery) => delivery.last_response_status !== null)) throw new Error('a delivery was refused');
      if (performance.now() - started > 120_000) throw new Error('deliveries did not finish within 120 s (an attempt timed out?)');
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  const elapsed = performance.now() - started;
  await runtime.close();
  return elapsed;
}

/** Runs the benchmark and prints deliveries per second, the floor and their ratio. */
export async function run(args: string[]): Promise<void> {
  const n = Number(option(args, 'deliveries', '500'));
  const rounds = Number(option(args, 'rounds', '3'));
  const receiver = await startReceiver();
  try {
    await floor(receiver.url, 50);
    await webhooks(receiver.url, 50);
    let floorMs = Infinity;
    let parallelMs = Infinity;
    let hooksMs = Infinity;
    let eventsMs = Infinity;
    for (let round = 0; round < rounds; round++) {
      floorMs = Math.min(floorMs, await floor(receiver.url, n));
      parallelMs = Math.min(parallelMs, await floor(receiver.url, n, DEFAULT_CONCURRENCY));
      hooksMs = Math.min(hooksMs, await webhooks(receiver.url, n));
      eventsMs = Math.min(eventsMs, await webhooks(null, n));
    }
    const rate = (ms: number) => Math.round((n / ms) * 1000);
    console.log(`webhooks: ${n} deliveries to a local receiver (best of ${rounds})`);
    console.log(`  bare loop of POSTs, one at a time  ${rate(floorMs).toLocaleString('en-US')} POSTs/s`);
    console.log(`  ${DEFAULT_CONCURRENCY} bare loops side by side       ${rate(parallelMs).toLocaleString('en-US')} POSTs/s  (the service's default concurrency)`);
    console.log(`  webhook deliveries, end to end     ${rate(hooksMs).toLocaleString('en-US')} deliveries/s`);
    console.log(`  the same events, no endpoint       ${rate(eventsMs).toLocaleString('en-US')} events/s`);
    console.log(`  ratio deliveries / one bare loop   ${(floorMs / hooksMs).toFixed(2)}`);
    console.log(`  ratio deliveries / ${DEFAULT_CONCURRENCY} bare loops    ${(parallelMs / hooksMs).toFixed(2)}`);
  } finally {
    await receiver.stop();
  }
}
