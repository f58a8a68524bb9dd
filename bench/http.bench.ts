/**
 * `npm run bench -- http [--duration S] [--connections N] [--rounds R] [--starts N]`: requests per
 * second of the HTTP server against a bare `node:http` floor, in the same run, on the same
 * machine, with autocannon:
 *
 * - GET /v1/wallet/balance with an agent's key: the server authenticates, dispatches and answers;
 *   the floor answers the same JSON bytes.
 * - POST /v1/wallet/send, a 0.01 USD book transfer to another agent: the server parses, validates,
 *   moves the money in the ledger and answers 201; the floor reads and parses the same body and
 *   answers the same JSON shape (no ledger work).
 * - For reference, GET balance through `runtime.dispatch` behind a bare `node:http` listener (what
 *   an edge with no cost of its own would reach).
 *
 * Each target runs in its own child process (one core for it, one for autocannon); floor and
 * server alternate round by round and the median of the rounds is compared. It also times
 * `agent-services --help` and how long `serve` takes to print `listening on` (built CLI).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

/** What a target child prints once it listens. */
interface TargetInfo {
  url: string;
  aliceKey: string;
  balance: string;
  sent: string;
}

type Role = 'server' | 'floor' | 'dispatch';

const SEND_BODY = JSON.stringify({ to: 'bob', amount: '0.01', asset: 'usd' });

/** A world with two funded agents; answers the keys and the exact JSON of a balance and a send. */
async function fundedWorld() {
  const { createRuntime } = await import('../src/index.js');
  const runtime = await createRuntime({ seed: 1 });
  const sim = runtime.simClient();
  const alice = await sim.createAgent({ name: 'alice', balances: { usd: '1000000000' } });
  await sim.createAgent({ name: 'bob' });
  const balance = JSON.stringify(await runtime.agent(alice.api_key).wallet.getBalance());
  const sent = JSON.stringify(await runtime.agent(alice.api_key).wallet.send({ to: 'bob', amount: '0.01', asset: 'usd' }));
  return { runtime, aliceKey: alice.api_key, balance, sent };
}

/** Reads a whole request body. */
function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.once('error', reject);
  });
}

function listen(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

/** Runs inside a child: starts one target and prints its {@link TargetInfo}. */
async function startTarget(role: Role): Promise<void> {
  const world = await fundedWorld();
  let url: string;
  if (role === 'server') {
    const { serve } = await import('../src/index.js');
    url = (await serve(world.runtime, { port: 0 })).url;
  } else if (role === 'floor') {
    // The floor answers the same bytes, reading and parsing the POST body as any JSON server must.
    url = await listen((request, response) => {
      if (request.method === 'POST') {
        void readBody(request).then((text) => {
          JSON.parse(text);
          response.writeHead(201, JSON_HEADERS).end(world.sent);
        });
      } else {
        response.writeHead(200, JSON_HEADERS).end(world.balance);
      }
    });
  } else {
    url = await listen((request, response) => {
      const bearer = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1] ?? null;
      void world.runtime.dispatch({ routeId: 'wallet.getBalance', bearer }).then((result) => {
        response.writeHead(result.status, JSON_HEADERS).end(JSON.stringify(result.body));
      });
    });
  }
  const info: TargetInfo = { url, aliceKey: world.aliceKey, balance: world.balance, sent: world.sent };
  process.stdout.write(`${JSON.stringify(info)}\n`);
}

/** Starts a target in a child process (tsx, as the benchmark itself). */
async function spawnTarget(role: Role): Promise<{ child: ChildProcess; info: TargetInfo }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: { ...process.env, HTTP_BENCH_ROLE: role },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const info = await new Promise<TargetInfo>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((candidate) => candidate.startsWith('{'));
      if (line) resolve(JSON.parse(line) as TargetInfo);
    });
    child.once('exit', (code) => reject(new Error(`${role} target exited (${code}) before it listened`)));
  });
  return { child, info };
}

interface Load {
  method: 'GET' | 'POST';
  path: string;
  status: number;
  body?: string;
}

const LOADS: Record<string, Load> = {
  'GET /v1/wallet/balance': { method: 'GET', path: '/v1/wallet/balance', status: 200 },
  'POST /v1/wallet/send (book transfer)': { method: 'POST', path: '/v1/wallet/send', status: 201, body: SEND_BODY },
};

/** Requests per second of one autocannon run; refuses a run with errors or unexpected answers. */
async function rate(info: TargetInfo, load: Load, connections: number, duration: number): Promise<number> {
  const result = await autocannon({
    url: info.url + load.path,
    method: load.method,
    connections,
    duration,
    headers: { authorization: `Bearer ${info.aliceKey}`, ...(load.body ? { 'content-type': 'application/json' } : {}) },
    ...(load.body ? { body: load.body } : {}),
  });
  if (result.errors > 0 || result.non2xx > 0 || result['2xx'] === 0) {
    throw new Error(`${load.method} ${load.path}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  }
  return result.requests.average;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const format = (value: number) => Math.round(value).toLocaleString('en-US');

/** Milliseconds until a child prints a line matching `ready` (or exits, for `--help`); `args` null times `node -e 0`. */
async function timeCli(args: string[] | null, ready: RegExp | null): Promise<number> {
  const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
  const start = performance.now();
  const child = spawn(process.execPath, args ? [cli, ...args] : ['-e', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (ready?.test(out)) resolve();
    });
    child.once('close', (code) => (ready === null && code === 0 ? resolve() : reject(new Error(`agent-services ${args?.join(' ')} exited ${code}`))));
  });
  const elapsed = performance.now() - start;
  if (ready) {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('close', resolve));
  }
  return elapsed;
}

async function startTimes(count: number): Promise<void> {
  const { ensureBuilt } = await import('../test/cli/ensure-built.js');
  await ensureBuilt();
  const bare: number[] = [];
  const help: number[] = [];
  const serve: number[] = [];
  for (let i = 0; i < count; i++) {
    bare.push(await timeCli(null, null));
    help.push(await timeCli(['--help'], null));
    serve.push(await timeCli(['serve', '--port', '0'], /listening on/));
  }
  const summary = (values: number[]) => `median ${Math.round(median(values))} ms, best ${Math.round(Math.min(...values))} ms`;
  console.log(`cli: node -e 0 (the floor of any command): ${summary(bare)} (${count} runs)`);
  console.log(`cli: agent-services --help: ${summary(help)} (${count} runs; target < 300 ms)`);
  console.log(`cli: agent-services serve until "listening on": ${summary(serve)} (${count} runs; target < 1,500 ms)`);
}

export async function run(args: string[]): Promise<void> {
  const option = (name: string, fallback: number) => {
    const at = args.indexOf(name);
    return at >= 0 ? Number(args[at + 1]) : fallback;
  };
  const duration = option('--duration', 10);
  const connections = option('--connections', 32);
  const rounds = option('--rounds', 3);
  const starts = option('--starts', 5);

  await startTimes(starts);

  const targets = await Promise.all((['floor', 'server', 'dispatch'] as const).map(async (role) => [role, await spawnTarget(role)] as const));
  const byRole = Object.fromEntries(targets) as Record<Role, { child: ChildProcess; info: TargetInfo }>;
  try {
    console.log(`http: autocannon, ${connections} connections, ${rounds} alternating rounds of ${duration} s per target (median req/s)`);
    for (const [name, load] of Object.entries(LOADS)) {
      const roles: Role[] = load.method === 'GET' ? ['floor', 'server', 'dispatch'] : ['floor', 'server'];
      // A short warm-up, so the JIT has seen the paths before anything is counted.
      for (const role of roles) await rate(byRole[role].info, load, connections, 2);
      const rates: Record<Role, number[]> = { floor: [], server: [], dispatch: [] };
      for (let round = 0; round < rounds; round++) {
        for (const role of roles) rates[role].push(await rate(byRole[role].info, load, connections, duration));
      }
      const floor = median(rates.floor);
      const server = median(rates.server);
      console.log(`  ${name}`);
      console.log(`    bare node:http floor        ${format(floor).padStart(8)} req/s`);
      console.log(`    agent-services server       ${format(server).padStart(8)} req/s   ${(server / floor).toFixed(2)}x of the floor (goal >= ${load.method === 'GET' ? '0.60' : '0.45'}x)`);
      if (rates.dispatch.length > 0) {
        const dispatch = median(rates.dispatch);
        console.log(`    runtime.dispatch, bare edge ${format(dispatch).padStart(8)} req/s   ${(dispatch / floor).toFixed(2)}x of the floor (reference)`);
      }
    }
  } finally {
    for (const { child } of targets.map(([, target]) => target)) child.kill('SIGKILL');
  }
}

if (process.env.HTTP_BENCH_ROLE) await startTarget(process.env.HTTP_BENCH_ROLE as Role);
