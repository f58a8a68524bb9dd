/**
 * `npm run bench -- http [--duration S] [--connections N] [--rounds R] [--starts N] [--only get|post] [--roles a,b]`: requests per
 * second of the HTTP server against a bare `node:http` floor, in the same run, on the same
 * machine, with autocannon:
 *
 * - GET /v1/wallet/balance with an agent's key: the server authenticates, dispatches and answers;
 *   the floor answers the same JSON bytes.
 * - POST /v1/wallet/send, a 0.01 USD book transfer to another agent: the server parses, validates,
 *   moves the money in the ledger and answers 201; the floor reads and parses the same body and
 *   answers the same JSON shape (no ledger work).
 * - The floor writing its answers as the server does (`batchedNodeWriter`: the answers of an
 *   event loop turn as a group): what that way of writing alone is worth here.
 * - For reference, both through `runtime.dispatch` behind a bare `node:http` listener, answers
 *   written as the server writes them (what an edge with no cost of its own would reach: the rest
 *   is the runtime's own work).
 * - For scale, the floor plus a fixed spin of CPU per request (`--floor-work-us N`, 25 by default,
 *   0 leaves it out): what a server whose every request does N µs of work beyond the floor's
 *   reaches on this machine. Its CPU per request grows by more than N, since the busier a server
 *   is, the more each of its socket calls costs (the client is less often already awake).
 *
 * - The server as `agent-services serve` operates it: one pino JSON line per request on stdout
 *   (a pipe this process drains; `HTTP_BENCH_LOG=FILE`: a file) and the Prometheus metrics
 *   counting every request. Its cost against the plain server is printed (goal: at most 10% of
 *   throughput), as a ratio of req/s and of CPU per request, both per round (the two targets run
 *   back to back in each round), with the range of the rounds.
 *
 * `--roles server,operated` runs only the targets named (the floor always runs).
 * Each target runs in its own child process (one core for it, one for autocannon); floor and
 * server alternate round by round and the median of the rounds is compared. Besides requests per
 * second, each target's CPU time per request (user + system, from the child's own
 * `process.cpuUsage()`) is compared: on a machine shared with other work, throughput swings with
 * whatever else runs, while the CPU a request costs holds much steadier. It also times
 * `agent-services --help` and how long `serve` takes to print `listening on` (built CLI), next to
 * `node -e 0`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

type Role = 'server' | 'operated' | 'floor' | 'grouped' | 'dispatch' | 'busy';

const SEND_BODY = JSON.stringify({ to: 'bob', amount: '0.01', asset: 'usd' });

/**
 * The package as users run it: the built `dist/` (made fresh by the parent before any target
 * starts). Running the sources through tsx instead would measure its transform too: esbuild's
 * `keepNames` wraps every closure made per request in a `__name` call.
 */
const built = () => import(new URL('../dist/index.js', import.meta.url).href) as Promise<typeof import('../src/index.js')>;

/** The server's writer of answers (`batchedNodeWriter`), from the built package. */
async function groupedWriter() {
  const { batchedNodeWriter } = (await import(new URL('../dist/http/answers.js', import.meta.url).href)) as typeof import('../src/http/answers.js');
  return batchedNodeWriter();
}

/** A world with two funded agents; answers the keys and the exact JSON of a balance and a send. */
async function fundedWorld() {
  const { createRuntime } = await built();
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
    const { serve } = await built();
    url = (await serve(world.runtime, { port: 0 })).url;
  } else if (role === 'operated') {
    // As `serve` runs it: request lines through pino to stdout (a pipe the parent drains, as a
    // journal or a container runtime reads a service's stdout) and the metrics counting and
    // timing every request.
    const { serve } = await built();
    const dist = (file: string) => new URL(`../dist/http/${file}`, import.meta.url).href;
    const { createRequestLogger } = (await import(dist('request-log.js'))) as typeof import('../src/http/request-log.js');
    const { ServiceMetrics } = (await import(dist('service-metrics.js'))) as typeof import('../src/http/service-metrics.js');
    // `HTTP_BENCH_OPERATED=logs` or `metrics` measures one of the two alone. `HTTP_BENCH_LOG=FILE`
    // writes the lines to a file instead (as `StandardOutput=append:FILE` does): no reader of a
    // pipe then competes with autocannon for the second core.
    const parts = (process.env.HTTP_BENCH_OPERATED ?? 'logs,metrics').split(',');
    const log = createRequestLogger(process.env.HTTP_BENCH_LOG ? { dest: process.env.HTTP_BENCH_LOG } : {});
    url = (await serve(world.runtime, { port: 0, sinks: parts.includes('logs') ? [log.sink] : [], ...(parts.includes('metrics') ? { metrics: new ServiceMetrics(world.runtime) } : {}) })).url;
  } else if (role === 'floor' || role === 'grouped' || role === 'busy') {
    // The floor answers the same bytes, reading and parsing the POST body as any JSON server must;
    // the busy floor spins a fixed CPU time per request first; the grouped floor writes its
    // answers as the server does (the answers of an event loop turn as a group).
    const workMs = role === 'busy' ? Number(process.env.HTTP_BENCH_WORK_US) / 1000 : 0;
    const grouped = role === 'grouped' ? await groupedWriter() : undefined;
    const answer = (response: ServerResponse, status: number, body: string) => {
      if (grouped) grouped(response, { status, headers: JSON_HEADERS, body }, false);
      else response.writeHead(status, JSON_HEADERS).end(body);
    };
    const work = () => {
      const until = performance.now() + workMs;
      while (workMs > 0 && performance.now() < until);
    };
    url = await listen((request, response) => {
      if (request.method === 'POST') {
        void readBody(request).then((text) => {
          JSON.parse(text);
          work();
          answer(response, 201, world.sent);
        });
      } else {
        work();
        answer(response, 200, world.balance);
      }
    });
  } else {
    // The least an edge can do: read the body, dispatch, stringify the answer (written as the
    // server writes its answers, so that the two differ only by the edge's own work).
    const grouped = await groupedWriter();
    url = await listen((request, response) => {
      const bearer = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1] ?? null;
      const body = request.method === 'POST' ? readBody(request).then((text) => JSON.parse(text) as unknown) : Promise.resolve(undefined);
      void body
        .then((parsed) => world.runtime.dispatch({ routeId: request.method === 'POST' ? 'wallet.send' : 'wallet.getBalance', bearer, body: parsed }))
        .then((result) => grouped(response, { status: result.status, headers: JSON_HEADERS, body: JSON.stringify(result.body) }, false));
    });
  }
  const info: TargetInfo = { url, aliceKey: world.aliceKey, balance: world.balance, sent: world.sent };
  // The parent asks for the CPU time used so far, around each run.
  process.on('message', () => process.send!(process.cpuUsage()));
  process.stdout.write(`${JSON.stringify(info)}\n`);
}

/** CPU microseconds (user + system) a target child has used so far. */
function cpuOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (usage: NodeJS.CpuUsage) => resolve(usage.user + usage.system));
    child.send('cpu');
  });
}

/** Starts a target in a child process (this file through tsx; the runtime it measures from `dist/`). */
async function spawnTarget(role: Role, workUs = 0): Promise<{ child: ChildProcess; info: TargetInfo }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: { ...process.env, HTTP_BENCH_ROLE: role, HTTP_BENCH_WORK_US: String(workUs) },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const info = await new Promise<TargetInfo>((resolve, reject) => {
    let out = '';
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((candidate) => candidate.startsWith('{"url"'));
      if (!line) return;
      // What follows (the operated target's request log) is read and dropped.
      child.stdout!.off('data', read);
      child.stdout!.resume();
      resolve(JSON.parse(line) as TargetInfo);
    };
    child.stdout!.on('data', read);
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

/** One autocannon run: requests per second and the target's CPU microseconds per request; refuses a run with errors or unexpected answers. */
async function rate(target: { child: ChildProcess; info: TargetInfo }, load: Load, connections: number, duration: number): Promise<{ rate: number; cpu: number }> {
  const { info } = target;
  const cpuBefore = await cpuOf(target.child);
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
  const cpu = (await cpuOf(target.child)) - cpuBefore;
  return { rate: result.requests.average, cpu: cpu / result['2xx'] };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const format = (value: number) => Math.round(value).toLocaleString('en-US');

/** CPU milliseconds (user + system) a running process has used, from /proc (Linux); NaN elsewhere. */
function cpuMsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * Milliseconds until a child prints a line matching `ready` (or exits, for `--help`), and, for a
 * child that prints `ready`, the CPU milliseconds it had used by then; `args` null times
 * `node -e 0`, a string times `node -e <string>`.
 */
async function timeCli(args: string[] | string | null, ready: RegExp | null): Promise<{ wall: number; cpu: number }> {
  const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
  const start = performance.now();
  const argv = Array.isArray(args) ? [cli, ...args] : ['-e', args ?? '0'];
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (ready?.test(out)) resolve();
    });
    child.once('close', (code) => (ready === null && code === 0 ? resolve() : reject(new Error(`${argv.join(' ')} exited ${code}`))));
  });
  const wall = performance.now() - start;
  const cpu = ready ? cpuMsOf(child.pid!) : Number.NaN;
  if (ready) {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('close', resolve));
  }
  return { wall, cpu };
}

async function startTimes(count: number): Promise<void> {
  const bare: number[] = [];
  const help: number[] = [];
  const serve: Array<{ wall: number; cpu: number }> = [];
  const idle: Array<{ wall: number; cpu: number }> = [];
  for (let i = 0; i < count; i++) {
    bare.push((await timeCli(null, null)).wall);
    help.push((await timeCli(['--help'], null)).wall);
    idle.push(await timeCli("console.log('ready'); setInterval(() => {}, 1000)", /ready/));
    serve.push(await timeCli(['serve', '--port', '0'], /listening on/));
  }
  const summary = (values: number[]) => `median ${Math.round(median(values))} ms, best ${Math.round(Math.min(...values))} ms`;
  const cpu = (values: Array<{ cpu: number }>) => `${Math.round(median(values.map((value) => value.cpu)))} ms CPU`;
  console.log(`cli: node -e 0 (the floor of any command): ${summary(bare)} (${count} runs)`);
  console.log(`cli: agent-services --help: ${summary(help)} (${count} runs; target < 300 ms)`);
  console.log(`cli: a bare node process until it prints a line: ${summary(idle.map((value) => value.wall))}, ${cpu(idle)}`);
  console.log(`cli: agent-services serve until "listening on": ${summary(serve.map((value) => value.wall))}, ${cpu(serve)} (${count} runs; target < 1,500 ms)`);
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
  const workUs = option('--floor-work-us', 25);

  const { ensureBuilt } = await import('../test/cli/ensure-built.js');
  await ensureBuilt();
  if (starts > 0) await startTimes(starts);

  const allRoles: Role[] = ['floor', 'server', 'operated', 'grouped', 'dispatch', ...(workUs > 0 ? (['busy'] as const) : [])];
  const named = args.includes('--roles') ? args[args.indexOf('--roles') + 1]!.split(',') : undefined;
  const roles = named ? allRoles.filter((role) => role === 'floor' || named.includes(role)) : allRoles;
  const targets = await Promise.all(roles.map(async (role) => [role, await spawnTarget(role, workUs)] as const));
  const byRole = Object.fromEntries(targets) as Record<Role, { child: ChildProcess; info: TargetInfo }>;
  try {
    console.log(`http: autocannon, ${connections} connections, ${rounds} alternating rounds of ${duration} s per target (median req/s)`);
    const only = args.includes('--only') ? args[args.indexOf('--only') + 1]!.toUpperCase() : undefined;
    for (const [name, load] of Object.entries(LOADS)) {
      if (only && load.method !== only) continue;
      // A short warm-up, so the JIT has seen the paths before anything is counted.
      for (const role of roles) await rate(byRole[role], load, connections, 2);
      const rates: Record<Role, number[]> = { floor: [], server: [], operated: [], grouped: [], dispatch: [], busy: [] };
      const cpus: Record<Role, number[]> = { floor: [], server: [], operated: [], grouped: [], dispatch: [], busy: [] };
      for (let round = 0; round < rounds; round++) {
        for (const role of roles) {
          const measured = await rate(byRole[role], load, connections, duration);
          rates[role].push(measured.rate);
          cpus[role].push(measured.cpu);
        }
      }
      const floor = median(rates.floor);
      const floorCpu = median(cpus.floor);
      const goal = load.method === 'GET' ? '0.60' : '0.45';
      const row = (label: string, role: Role, note: string) => {
        const value = median(rates[role]);
        const cpu = median(cpus[role]);
        const ratios = role === 'floor' ? '' : `   ${(value / floor).toFixed(2)}x req/s, ${(floorCpu / cpu).toFixed(2)}x by CPU per request${note}`;
        console.log(`    ${label.padEnd(28)} ${format(value).padStart(8)} req/s ${cpu.toFixed(1).padStart(7)} µs CPU/request${ratios}`);
      };
      console.log(`  ${name}`);
      row('bare node:http floor', 'floor', '');
      const ran = (role: Role) => rates[role].length > 0;
      if (ran('server')) row('agent-services server', 'server', ` (goal >= ${goal}x)`);
      if (ran('operated')) row('server + JSON logs + metrics', 'operated', ' (as `serve` runs it)');
      if (ran('grouped')) row('floor, answers grouped', 'grouped', ' (the floor written as the server writes)');
      if (ran('dispatch')) row('runtime.dispatch, bare edge', 'dispatch', ' (reference)');
      if (ran('busy')) row(`floor + ${workUs} µs CPU/request`, 'busy', ' (scale)');
      if (ran('server') && ran('operated')) {
        // Each round's own ratio, then their median: the two ran back to back in every round.
        const throughputs = rates.operated.map((value, index) => value / rates.server[index]!);
        const cpuRatios = cpus.operated.map((value, index) => value / cpus.server[index]!);
        const throughput = median(throughputs);
        const cpu = median(cpuRatios);
        const range = (values: number[], cost: (ratio: number) => number) => `rounds ${values.map((ratio) => cost(ratio).toFixed(1)).join(', ')}%`;
        console.log(
          `    logs + metrics: ${throughput.toFixed(3)}x the plain server's req/s (cost ${((1 - throughput) * 100).toFixed(1)}%; ${range(throughputs, (ratio) => (1 - ratio) * 100)}), ` +
            `${cpu.toFixed(3)}x its CPU per request (cost ${((cpu - 1) * 100).toFixed(1)}%; ${range(cpuRatios, (ratio) => (ratio - 1) * 100)}); goal: cost <= 10%`,
        );
      }
    }
  } finally {
    for (const { child } of targets.map(([, target]) => target)) child.kill('SIGKILL');
  }
}

if (process.env.HTTP_BENCH_ROLE) await startTarget(process.env.HTTP_BENCH_ROLE as Role);
