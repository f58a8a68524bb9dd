/**
 * `npm run bench -- email [--messages N] [--connections N] [--sizes 1000,100000] [--postfix-messages N] [--postfix-sessions 1,16,64] [--postfix-rounds N] [--floor-work-us N] [--data DIR] [--only postfix] [--postfix-part clear|tls|both] [--tls-messages N]`
 *
 * 0. Postfix's own load tools against the listener and against the floors, in the same run:
 *    `smtp-source -s S -m 3000 -l 2048` (one connection per message, as MTAs send) to `smtp-sink`
 *    (Postfix's fastest possible receiver), to a bare `node:net` responder (Node's own floor) and
 *    to the built listener, for S = 1, 16 and 64 sessions, rounds interleaved; the ratios to
 *    `smtp-sink` and to the Node floor are printed (./smtp-postfix.ts), with, for scale, the Node
 *    floor spinning `--floor-work-us` (50) µs of CPU per message. Skipped with a printed
 *    reason when Postfix's tools are not installed. With `--data DIR` the listener's world is a
 *    durable one (SQLite) in a fresh folder under DIR, removed afterwards: a 250 then waits for the
 *    commit on disk.
 * 1. Messages per second accepted over loopback SMTP by the SMTP listener: a pool of raw SMTP
 *    connections (and, for comparison, a pooled nodemailer transport) sends a fixed number of
 *    ~1 KB messages to one agent; a message counts once the server answered 250 to its DATA,
 *    i.e. once it is parsed and stored in the inbox. Target: >= 1,000 messages/s.
 * 2. The cost of one inbox page (limit 20, in-process, through the dispatcher and validation)
 *    with 1,000 and with 100,000 messages in the inbox: first page, a deep page by cursor, a
 *    `since` page and a thread page. Target: the 100,000 cost within 1.5x of the 1,000 cost.
 */
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import nodemailer from 'nodemailer';
import { createRuntime, type AgentClient, type ListeningEdge, type Runtime } from '../src/index.js';
import { postfixComparison } from './smtp-postfix.js';

function option(args: string[], name: string, fallback: string): string {
  const index = args.indexOf(`--${name}`);
  return index >= 0 && args[index + 1] !== undefined ? args[index + 1]! : fallback;
}

const MESSAGE = (n: number) =>
  [
    'From: "Load Test" <load@example.com>',
    'To: bob@agents.test',
    `Subject: Message number ${n} =?UTF-8?Q?=E2=9C=93?=`,
    `Message-ID: <load-${n}@example.com>`,
    'Date: Thu, 01 Jan 2026 00:00:00 +0000',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    ...Array.from({ length: 12 }, (_, line) => `Line ${line} of message ${n}: the quick brown fox jumps over the lazy dog.`),
    '',
  ].join('\r\n');

/**
 * The raw SMTP client, run in a worker thread so that the server's event loop (the thing measured)
 * has the main thread to itself: `connections` connections each send messages one after another
 * (no pipelining) until `total` were accepted, then the worker posts the elapsed milliseconds.
 */
const CLIENT = `
const net = require('node:net');
const { parentPort, workerData } = require('node:worker_threads');
const { port, total, connections, messages } = workerData;
function connection() {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.setNoDelay(true);
    let buffer = '';
    const waiters = [];
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      for (let end = buffer.indexOf('\\r\\n'); end >= 0; end = buffer.indexOf('\\r\\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (/^\\d{3} /.test(line)) waiters.shift()?.(line);
      }
    });
    socket.once('error', reject);
    const expect = (code) => new Promise((ok, fail) => waiters.push((line) => (line.startsWith(code) ? ok() : fail(new Error(line)))));
    const send = async (n) => {
      socket.write('MAIL FROM:<load@example.com>\\r\\n'); await expect('250');
      socket.write('RCPT TO:<bob@agents.test>\\r\\n'); await expect('250');
      socket.write('DATA\\r\\n'); await expect('354');
      socket.write(messages[n % messages.length] + '.\\r\\n'); await expect('250');
    };
    expect('220')
      .then(() => { socket.write('EHLO bench.example.com\\r\\n'); return expect('250'); })
      .then(() => resolve({ send, close: () => socket.end('QUIT\\r\\n') }), reject);
  });
}
(async () => {
  const pool = await Promise.all(Array.from({ length: connections }, connection));
  for (const c of pool) await c.send(0);
  let next = 0;
  const started = performance.now();
  await Promise.all(pool.map(async (c) => { for (let n = next++; n < total; n = next++) await c.send(n); }));
  const elapsed = performance.now() - started;
  for (const c of pool) c.close();
  parentPort.postMessage(elapsed);
})().catch((error) => parentPort.postMessage({ error: String(error) }));
`;

/** Runs the raw client in a worker and answers the elapsed milliseconds. */
function rawClient(port: number, total: number, connections: number): Promise<number> {
  const messages = Array.from({ length: 100 }, (_, n) => MESSAGE(n));
  const worker = new Worker(CLIENT, { eval: true, workerData: { port, total, connections, messages } });
  return new Promise((resolve, reject) => {
    worker.once('message', (result: number | { error: string }) => {
      void worker.terminate();
      if (typeof result === 'number') resolve(result);
      else reject(new Error(result.error));
    });
    worker.once('error', reject);
  });
}

async function smtpThroughput(total: number, connections: number): Promise<void> {
  const runtime = await createRuntime({ seed: 1, email: { smtp: { port: 0 } } });
  await runtime.createAgent({ name: 'bob' });
  const [server] = (await runtime.listen()) as [ListeningEdge];

  // Raw connections from a worker thread: what the server accepts (parse, store, answer 250).
  const rawSeconds = (await rawClient(server.port, total, connections)) / 1000;
  const stored = (await runtime.sim.events(0, 10 * total + 100)).events.filter((event) => event.type === 'email.received').length;
  console.log(`smtp, raw client:  ${total} messages over ${connections} connections in ${rawSeconds.toFixed(2)} s = ${Math.round(total / rawSeconds)} messages/s accepted (${stored - connections} stored)`);

  // nodemailer, pooled: a stock client (it also spends CPU composing MIME in this same process).
  const nodemailerTotal = Math.min(total, 3000);
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: server.port, secure: false, ignoreTLS: true, pool: true, maxConnections: connections, maxMessages: Infinity });
  await transport.sendMail({ from: 'load@example.com', to: 'bob@agents.test', subject: 'warm-up', text: 'x' });
  const mailStarted = performance.now();
  await Promise.all(
    Array.from({ length: nodemailerTotal }, (_, n) => transport.sendMail({ from: '"Load Test" <load@example.com>', to: 'bob@agents.test', subject: `Message ${n} ✓`, text: MESSAGE(n).split('\r\n\r\n')[1]! })),
  );
  const mailSeconds = (performance.now() - mailStarted) / 1000;
  transport.close();
  console.log(`smtp, nodemailer:  ${nodemailerTotal} messages, pool of ${connections} in ${mailSeconds.toFixed(2)} s = ${Math.round(nodemailerTotal / mailSeconds)} messages/s accepted`);
  await runtime.close();
}

/** Fills bob's inbox to `size` messages through the control plane (fields, no MIME parsing). */
async function fill(runtime: Runtime, size: number): Promise<void> {
  const sim = runtime.simClient();
  for (let n = 0; n < size; n++) {
    // Every 50th message answers the first, so one thread holds 2% of the mailbox.
    const headers = n === 0 ? { 'Message-ID': '<thread-root@example.com>' } : n % 50 === 0 ? { 'In-Reply-To': '<thread-root@example.com>' } : undefined;
    await sim.emailInbound({ to: 'bob@agents.test', from: 'load@example.com', subject: `Message ${n}`, text: `Body of message ${n}`, ...(headers ? { headers } : {}) });
    if (n % 1000 === 999) await runtime.sim.advance({ seconds: 1 });
  }
}

/**
 * Median over rounds of the mean µs per call: the calls are interleaved round by round so that a
 * pause of the machine (GC, another process) lands in one round of one call, not in one number.
 */
async function costs(calls: Record<string, () => Promise<unknown>>, iterations: number, rounds = 7): Promise<Record<string, number>> {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(calls).map((name) => [name, []]));
  for (const call of Object.values(calls)) for (let i = 0; i < 200; i++) await call();
  const perRound = Math.max(1, Math.ceil(iterations / rounds));
  for (let round = 0; round < rounds; round++) {
    for (const [name, call] of Object.entries(calls)) {
      const started = performance.now();
      for (let i = 0; i < perRound; i++) await call();
      samples[name]!.push(((performance.now() - started) * 1000) / perRound);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!]));
}

/** Builds an inbox of `size` messages and answers the four page calls measured on it. */
async function pageCalls(size: number): Promise<Record<string, () => Promise<unknown>>> {
  const runtime = await createRuntime({ seed: 1 });
  const bob: AgentClient = runtime.agent((await runtime.createAgent({ name: 'bob' })).api_key);
  const fillStarted = performance.now();
  await fill(runtime, size);
  console.log(`inbox of ${size.toLocaleString('en')} messages filled in ${((performance.now() - fillStarted) / 1000).toFixed(1)} s`);
  const first = await bob.email.list({ limit: 20 });
  // A cursor halfway down the mailbox.
  let deep = first;
  for (let walked = 20; walked < size / 2 && deep.next_cursor; walked += 100) deep = await bob.email.list({ limit: 100, cursor: deep.next_cursor });
  const deepCursor = deep.next_cursor ?? first.next_cursor ?? undefined;
  const since = new Date(Date.parse(first.messages[0]!.received_at) - 5_000).toISOString();
  const threaded = `Message ${Math.floor((size - 1) / 50) * 50}`;
  const threadId = (await bob.email.list({ limit: 100 })).messages.find((message) => message.subject === threaded)!.thread_id;
  return {
    'first page': () => bob.email.list({ limit: 20 }),
    'deep page (cursor)': () => bob.email.list({ limit: 20, ...(deepCursor ? { cursor: deepCursor } : {}) }),
    'since page': () => bob.email.list({ limit: 20, since }),
    'thread page': () => bob.email.list({ limit: 20, thread_id: threadId }),
  };
}

/** Runs both measurements and prints them. */
export async function run(args: string[]): Promise<void> {
  const total = Number(option(args, 'messages', '5000'));
  const connections = Number(option(args, 'connections', '16'));
  const [small, large] = option(args, 'sizes', '1000,100000').split(',').map(Number) as [number, number];
  const iterations = Number(option(args, 'iterations', '2000'));

  console.log('email benchmark (Node ' + process.version + ')');
  const postfixMessages = Number(option(args, 'postfix-messages', '3000'));
  const postfixSessions = option(args, 'postfix-sessions', '1,16,64').split(',').map(Number);
  const data = option(args, 'data', '');
  const part = option(args, 'postfix-part', 'both');
  await postfixComparison(postfixMessages, postfixSessions, Number(option(args, 'postfix-rounds', '3')), data === '' ? undefined : data, Number(option(args, 'floor-work-us', '50')), {
    clear: part !== 'tls',
    tls: part !== 'clear',
    tlsMessages: Number(option(args, 'tls-messages', '1000')),
  });
  if (option(args, 'only', '') === 'postfix') return;
  await smtpThroughput(total, connections);
  const smallCalls = await pageCalls(small);
  const largeCalls = await pageCalls(large);
  // Both inboxes are measured interleaved, round by round, so neither gets a colder JIT or a busier machine.
  const measured = await costs(
    Object.fromEntries([...Object.entries(smallCalls).map(([name, call]) => [`${name}@small`, call]), ...Object.entries(largeCalls).map(([name, call]) => [`${name}@large`, call])]),
    iterations,
  );
  for (const name of Object.keys(smallCalls)) {
    const a = measured[`${name}@small`]!;
    const b = measured[`${name}@large`]!;
    console.log(`page cost, ${name}: ${a.toFixed(1)} µs at ${small.toLocaleString('en')}, ${b.toFixed(1)} µs at ${large.toLocaleString('en')}, ratio ${(b / a).toFixed(2)}x (target <= 1.5x)`);
  }
}
