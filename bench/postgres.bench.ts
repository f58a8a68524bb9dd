/**
 * `npm run bench -- postgres [--clients N] [--agents A] [--sends S] [--rounds R] [--records R] [--servers 2] [--statements] [--only sends|memory] [--no-build]`:
 * the PostgreSQL store as it is served, against a bare SQL floor in the same run, on one throwaway
 * PostgreSQL cluster with fsync on (`startThrowawayPostgres({ durable: true })`).
 *
 * - Sends: keyed book transfers (POST /v1/wallet/send with an Idempotency-Key, agent to agent,
 *   usd) through TWO (`--servers N`: N, to see what the second process costs) `agent-services serve --database URL` processes (the built `dist/`) on one
 *   database, from N concurrent HTTP clients split over both. The floor, with the same N clients
 *   and the same pairs of agents: per send one transaction that locks the two balance rows in id
 *   order (SELECT ... FOR UPDATE), updates both and inserts two history rows (postgres.js, tables
 *   of its own in the same database). Floor and server rounds alternate; the medians are compared.
 *   Beside sends/s: CPU per send of the servers, of PostgreSQL (the cluster's processes, from
 *   /proc) and of this process (the clients, or the floor's driver), and WAL bytes per send.
 * - Memory: resident memory (RSS, /proc/PID/status) of a fresh server process serving a world of
 *   about 1,000 records and then one of 100,000 (grown through the API), each after the same
 *   warm-up (keyed sends, history pages, balances, an events page) and a forced garbage collection
 *   (the server runs with --expose-gc and a preloaded SIGUSR2 handler that calls gc()).
 *
 * `--statements` also counts the statements each send makes (pg_stat_statements, preloaded in the
 * cluster: it costs each statement a little, so the rates of such a run are not the reference). The
 * count is of the database's statements during the round: the servers' work by time (batched
 * NOTIFYs, the faults gate's re-reads) is in it, and some of it can fall in the next round.
 * `PG_BENCH_SERVER_FLAGS` adds Node flags to the servers (e.g. `--cpu-prof --cpu-prof-dir=DIR` to profile them).
 *
 * The servers, the clients and PostgreSQL share this machine's cores: each round's figure is as
 * much the neighbours' work as ours, so the ratio of the same run is what to read.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import postgres, { type Sql } from 'postgres';
import { postgresUnavailableReason, startThrowawayPostgres } from '../test/support/throwaway-postgres.js';

const CLI = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Preloaded into the servers whose memory is read: SIGUSR2 collects garbage twice, then prints process.memoryUsage(). */
const GC_HOOK = 'data:text/javascript,' + encodeURIComponent("process.on('SIGUSR2', () => { globalThis.gc(); globalThis.gc(); process.stdout.write('bench-memory ' + JSON.stringify(process.memoryUsage()) + '\\n'); });");

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// Processes

interface Server {
  url: string;
  child: ChildProcess;
  agent: http.Agent;
  out(): string;
}

async function startServer(database: string, options: { gcHook?: boolean; sockets: number }): Promise<Server> {
  const flags = [...(options.gcHook ? ['--expose-gc', '--import', GC_HOOK] : []), ...(process.env.PG_BENCH_SERVER_FLAGS?.split(' ').filter(Boolean) ?? [])];
  const child = spawn(process.execPath, [...flags, CLI, 'serve', '--port', '0', '--database', database], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const found = /^listening on (http:\/\/\S+)$/m.exec(out)?.[1];
      if (found) resolve(found);
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => reject(new Error(`agent-services serve exited (${code}) before it listened: ${out}`)));
  });
  return { url, child, agent: new http.Agent({ keepAlive: true, maxSockets: options.sockets }), out: () => out };
}

async function stopServer(server: Server): Promise<void> {
  server.agent.destroy();
  if (server.child.exitCode !== null) return;
  const closed = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await closed;
}

/** utime + stime (+ those of waited-for children when `children`) of a process, in ms; NaN when gone. */
function cpuMsOf(pid: number, children = false): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]) + (children ? Number(fields[13]) + Number(fields[14]) : 0);
    return (ticks * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

/** The cluster's postmaster (the process listening on `port`) and its children. */
function clusterPids(port: string): number[] {
  const pids: number[] = [];
  let postmaster = -1;
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      parents.set(Number(name), Number(stat.split(') ')[1]!.split(' ')[1]));
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (cmdline.includes('-p') && cmdline[cmdline.indexOf('-p') + 1] === port) postmaster = Number(name);
      else if (cmdline.some((part) => part === `-p ${port}` || part.includes(`-p ${port} `))) postmaster = Number(name);
    } catch {
      // gone meanwhile
    }
  }
  if (postmaster < 0) return [];
  for (const [pid, parent] of parents) if (parent === postmaster) pids.push(pid);
  return [postmaster, ...pids];
}

/** CPU ms used so far by the cluster (postmaster with its reaped children, plus live children). */
function clusterCpuMs(port: string): number {
  const [postmaster, ...children] = clusterPids(port);
  if (postmaster === undefined) return Number.NaN;
  return cpuMsOf(postmaster, true) + children.reduce((sum, pid) => sum + (cpuMsOf(pid) || 0), 0);
}

function rssKiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
}

// ---------------------------------------------------------------------------------------------
// HTTP

interface Answer {
  status: number;
  text: string;
}

function call(server: Server, method: string, path: string, options: { key?: string; body?: unknown; idempotencyKey?: string } = {}): Promise<Answer> {
  const url = new URL(server.url);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        agent: server.agent,
        headers: {
          ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
          ...(options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {}),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.once('end', () => resolve({ status: response.statusCode!, text: Buffer.concat(chunks).toString('utf8') }));
        response.once('error', reject);
      },
    );
    request.once('error', reject);
    request.end(payload);
  });
}

interface World {
  names: string[];
  keys: string[];
}

async function createAgents(server: Server, count: number, prefix: string): Promise<World> {
  const world: World = { names: [], keys: [] };
  for (let i = 0; i < count; i++) {
    const name = `${prefix}${i}`;
    const created = await call(server, 'POST', '/_sim/agents', { body: { name, balances: { usd: '100000000' } } });
    if (created.status !== 201) throw new Error(`POST /_sim/agents ${created.status}: ${created.text}`);
    world.names.push(name);
    world.keys.push((JSON.parse(created.text) as { api_key: string }).api_key);
  }
  return world;
}

/** `sends` keyed book transfers from `clients` concurrent clients, client c on server c mod the servers' count; sends/s. */
async function serverRound(servers: Server[], world: World, sends: number, clients: number, tag: string): Promise<number> {
  let next = 0;
  const failures: string[] = [];
  const start = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const server = servers[c % servers.length]!;
      for (let i = next++; i < sends; i = next++) {
        const from = i % world.keys.length;
        const answer = await call(server, 'POST', '/v1/wallet/send', {
          key: world.keys[from]!,
          idempotencyKey: `${tag}-${i}`,
          body: { to: world.names[(from + 1) % world.names.length], amount: '0.01', asset: 'usd' },
        });
        if (answer.status !== 201) failures.push(`${answer.status} ${answer.text.slice(0, 200)}`);
      }
    }),
  );
  const rate = sends / ((performance.now() - start) / 1000);
  if (failures.length > 0) throw new Error(`${failures.length} of ${sends} sends failed, e.g. ${failures[0]}`);
  return rate;
}

// ---------------------------------------------------------------------------------------------
// The floor

async function setUpFloor(sql: Sql, agents: number): Promise<void> {
  await sql`DROP TABLE IF EXISTS bench_floor_history`;
  await sql`DROP TABLE IF EXISTS bench_floor_balances`;
  await sql`CREATE TABLE bench_floor_balances (id integer PRIMARY KEY, usd bigint NOT NULL)`;
  await sql`CREATE TABLE bench_floor_history (
    id bigserial PRIMARY KEY, agent integer NOT NULL, counterparty integer NOT NULL, direction text NOT NULL,
    amount bigint NOT NULL, asset text NOT NULL, idempotency_key text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`;
  await sql`INSERT INTO bench_floor_balances (id, usd) SELECT i, 10000000000 FROM generate_series(0, ${agents - 1}) AS i`;
}

/**
 * The same sends as {@link serverRound}, as bare SQL: lock both rows in id order, update both, two
 * history rows. `orderLock`: also one world-wide lock (a transaction-level advisory lock) before
 * the history rows, held to the commit, as the event log's order lock is: the ceiling of any
 * design in which every send takes one lock in turn.
 */
async function floorRound(sql: Sql, agents: number, sends: number, clients: number, tag: string, orderLock = false): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = next++; i < sends; i = next++) {
        const from = i % agents;
        const to = (from + 1) % agents;
        const key = `${tag}-${i}`;
        await sql.begin(async (tx) => {
          const rows = await tx`SELECT id, usd FROM bench_floor_balances WHERE id IN (${Math.min(from, to)}, ${Math.max(from, to)}) ORDER BY id FOR UPDATE`;
          if (rows.length !== 2) throw new Error('floor: balance rows missing');
          await tx`UPDATE bench_floor_balances SET usd = usd - 1 WHERE id = ${from}`;
          await tx`UPDATE bench_floor_balances SET usd = usd + 1 WHERE id = ${to}`;
          if (orderLock) await tx`SELECT pg_advisory_xact_lock(7301)`;
          await tx`INSERT INTO bench_floor_history (agent, counterparty, direction, amount, asset, idempotency_key)
            VALUES (${from}, ${to}, 'out', 1, 'usd', ${key}), (${to}, ${from}, 'in', 1, 'usd', ${key})`;
        });
      }
    }),
  );
  return sends / ((performance.now() - start) / 1000);
}

// ---------------------------------------------------------------------------------------------
// Measurements

interface Costs {
  rate: number;
  /** CPU ms per send of the servers, the cluster and this process. */
  servers: number;
  cluster: number;
  self: number;
  walBytes: number;
  /** Top-level statements per send (with --statements), else NaN. */
  statements: number;
}

/** Top-level statements run so far in the current database (pg_stat_statements), or NaN without it. */
async function statementsRun(sql: Sql, counting: boolean): Promise<number> {
  if (!counting) return Number.NaN;
  const [row] = await sql`SELECT coalesce(sum(calls), 0)::bigint AS calls FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`;
  return Number(row!.calls);
}

async function walLsn(sql: Sql): Promise<string> {
  return (await sql`SELECT pg_current_wal_lsn()::text AS lsn`)[0]!.lsn as string;
}

async function walSince(sql: Sql, lsn: string): Promise<number> {
  return Number((await sql`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), ${lsn}::pg_lsn) AS bytes`)[0]!.bytes);
}

async function measured(sql: Sql, port: string, servers: Server[], sends: number, round: () => Promise<number>, counting = false): Promise<Costs> {
  const statements = await statementsRun(sql, counting);
  const lsn = await walLsn(sql);
  const serverCpu = servers.reduce((sum, server) => sum + cpuMsOf(server.child.pid!), 0);
  const clusterCpu = clusterCpuMs(port);
  const selfCpu = process.cpuUsage();
  const rate = await round();
  const self = process.cpuUsage(selfCpu);
  return {
    rate,
    servers: (servers.reduce((sum, server) => sum + cpuMsOf(server.child.pid!), 0) - serverCpu) / sends,
    cluster: (clusterCpuMs(port) - clusterCpu) / sends,
    self: (self.user + self.system) / 1000 / sends,
    walBytes: (await walSince(sql, lsn)) / sends,
    // The first count and the two WAL readings are not the sends'.
    statements: ((await statementsRun(sql, counting)) - statements - 3) / sends,
  };
}

async function benchSends(admin: Sql, urlOf: (db: string) => string, port: string, options: { clients: number; agents: number; sends: number; rounds: number; servers: number; statements: boolean }): Promise<void> {
  const { clients, agents, sends, rounds } = options;
  await admin.unsafe('CREATE DATABASE bench_sends');
  const url = urlOf('bench_sends');
  const servers = await Promise.all(Array.from({ length: options.servers }, () => startServer(url, { sockets: Math.ceil(clients / options.servers) })));
  const sql = postgres(url, { onnotice: () => {}, max: clients });
  if (options.statements) await sql`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`;
  try {
    const world = await createAgents(servers[0]!, agents, 'payer');
    await setUpFloor(sql, agents);
    console.log(
      `postgres: keyed book-transfer sends, ${clients} concurrent clients, ${agents} agents (send i from agent i mod ${agents} to the next), ` +
        `${rounds} alternating rounds of ${fmt(sends)}; ${servers.length} server process(es) (${clients / servers.length} clients each) vs the bare SQL floor`,
    );
    // Warm-up: JIT, connection pools, the tables' first pages.
    await serverRound(servers, world, Math.min(1_000, sends), clients, 'warm');
    await floorRound(sql, agents, Math.min(1_000, sends), clients, 'warm');
    const served: Costs[] = [];
    const floor: Costs[] = [];
    const locked: Costs[] = [];
    for (let round = 0; round < rounds; round++) {
      const runServer = async () => {
        served.push(await measured(sql, port, servers, sends, () => serverRound(servers, world, sends, clients, `r${round}`), options.statements));
      };
      const runFloor = async () => {
        floor.push(await measured(sql, port, [], sends, () => floorRound(sql, agents, sends, clients, `r${round}`), options.statements));
      };
      const runLocked = async () => {
        locked.push(await measured(sql, port, [], sends, () => floorRound(sql, agents, sends, clients, `l${round}`, true), options.statements));
      };
      if (round % 2 === 0) {
        await runServer();
        await runFloor();
        await runLocked();
      } else {
        await runLocked();
        await runFloor();
        await runServer();
      }
      console.log(
        `  round ${round + 1}: servers ${fmt(served.at(-1)!.rate)} sends/s, floor ${fmt(floor.at(-1)!.rate)} sends/s, ratio ${fmt(served.at(-1)!.rate / floor.at(-1)!.rate, 2)}x; ` +
          `floor with one world-wide lock ${fmt(locked.at(-1)!.rate)} sends/s`,
      );
    }
    const row = (name: string, costs: Costs[]) => {
      const m = (key: keyof Costs) => median(costs.map((cost) => cost[key]));
      return (
        `  ${name.padEnd(28)} ${fmt(m('rate')).padStart(7)} sends/s   CPU per send: servers ${fmt(m('servers') * 1000).padStart(5)} µs, PostgreSQL ${fmt(m('cluster') * 1000).padStart(5)} µs, ` +
        `this process ${fmt(m('self') * 1000).padStart(5)} µs; WAL ${fmt(m('walBytes')).padStart(6)} bytes per send` +
        (options.statements ? `; ${fmt(m('statements'), 2)} statements per send` : '')
      );
    };
    console.log(`  median of ${rounds} rounds:`);
    console.log(row(`${servers.length} server(s) (HTTP)`, served));
    console.log(row('bare SQL floor', floor));
    console.log(row('floor + a world-wide lock', locked));
    const ratio = median(served.map((cost) => cost.rate)) / median(floor.map((cost) => cost.rate));
    console.log(`  ratio servers / floor: ${fmt(ratio, 2)}x (goal >= 0.40x: ${ratio >= 0.4 ? 'met' : 'NOT met'})`);
  } finally {
    await sql.end({ timeout: 1 });
    await Promise.all(servers.map(stopServer));
  }
}

async function recordCount(sql: Sql): Promise<number> {
  return Number((await sql`SELECT count(*)::bigint AS n FROM agent_services_records`)[0]!.n);
}

/** Sends through `servers` until the world holds at least `records` records. */
async function growTo(sql: Sql, servers: Server[], world: World, records: number, clients: number, tag: string): Promise<void> {
  for (let batch = 0; ; batch++) {
    const have = await recordCount(sql);
    if (have >= records) return;
    // About six records per keyed book transfer (two history records, two events, the idempotency
    // record and its expiry): overshoot little.
    const sends = Math.max(clients, Math.min(5_000, Math.ceil((records - have) / 6)));
    await serverRound(servers, world, sends, clients, `${tag}-${batch}`);
  }
}

interface MemoryReading {
  /** Records when the process started, and when its memory was read (the warm-up adds some). */
  atStart: number;
  records: number;
  rss: number;
  heapUsed: number;
  external: number;
}

/** A fresh server on `url`: the warm-up, a forced GC, then its RSS. */
async function memoryOf(sql: Sql, url: string, world: World): Promise<MemoryReading> {
  const atStart = await recordCount(sql);
  const server = await startServer(url, { gcHook: true, sockets: 8 });
  try {
    // The same warm-up for every world: 500 keyed sends, 1,000 history pages (every other one
    // deeper, by cursor), 500 balances, 20 events pages.
    await serverRound([server], world, 500, 8, `warm-${Date.now()}`);
    let cursor: string | undefined;
    for (let i = 0; i < 1_000; i++) {
      const key = world.keys[i % world.keys.length]!;
      const page = await call(server, 'GET', `/v1/wallet/transactions?limit=20${cursor && i % 2 ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key });
      if (page.status !== 200) throw new Error(`history page ${page.status}: ${page.text}`);
      if (i % 2 === 0) cursor = (JSON.parse(page.text) as { next_cursor?: string }).next_cursor ?? undefined;
    }
    for (let i = 0; i < 500; i++) await call(server, 'GET', '/v1/wallet/balance', { key: world.keys[i % world.keys.length]! });
    for (let i = 0; i < 20; i++) await call(server, 'GET', '/_sim/events?limit=100');
    const before = server.out().length;
    server.child.kill('SIGUSR2');
    let line: string | undefined;
    for (let wait = 0; wait < 200 && !line; wait++) {
      await sleep(25);
      line = /^bench-memory (.*)$/m.exec(server.out().slice(before))?.[1];
    }
    if (!line) throw new Error('the server did not answer SIGUSR2 with its memory');
    const usage = JSON.parse(line) as NodeJS.MemoryUsage;
    return { atStart, records: await recordCount(sql), rss: rssKiB(server.child.pid!) * 1024, heapUsed: usage.heapUsed, external: usage.external };
  } finally {
    await stopServer(server);
  }
}

async function benchMemory(admin: Sql, urlOf: (db: string) => string, options: { clients: number; agents: number; records: number }): Promise<void> {
  await admin.unsafe('CREATE DATABASE bench_memory');
  const url = urlOf('bench_memory');
  const sql = postgres(url, { onnotice: () => {}, max: 2 });
  try {
    let servers = [await startServer(url, { sockets: options.clients })];
    const world = await createAgents(servers[0]!, options.agents, 'holder');
    await growTo(sql, servers, world, 1_000, options.clients, 'small');
    await Promise.all(servers.map(stopServer));
    const small = await memoryOf(sql, url, world);
    const growStart = performance.now();
    servers = await Promise.all([0, 1].map(() => startServer(url, { sockets: Math.ceil(options.clients / 2) })));
    await growTo(sql, servers, world, options.records, options.clients, 'large');
    await Promise.all(servers.map(stopServer));
    const grown = (performance.now() - growStart) / 1000;
    const large = await memoryOf(sql, url, world);
    const mib = (bytes: number) => `${fmt(bytes / 1024 / 1024, 1)} MiB`;
    console.log(`postgres: memory of a fresh server process after the same warm-up (500 keyed sends, 1,000 history pages, 500 balances, 20 events pages) and a forced GC`);
    for (const [name, reading] of [
      ['small world', small],
      ['large world', large],
    ] as const) {
      console.log(
        `  ${name}: ${fmt(reading.atStart)} records at the process's start, ${fmt(reading.records)} at the reading: RSS ${mib(reading.rss)}, heap used ${mib(reading.heapUsed)}, external ${mib(reading.external)}`,
      );
    }
    const ratio = large.rss / small.rss;
    console.log(`  RSS ratio large / small: ${fmt(ratio, 2)}x (goal <= 1.20x: ${ratio <= 1.2 ? 'met' : 'NOT met'}); heap ratio ${fmt(large.heapUsed / small.heapUsed, 2)}x; growing the world took ${fmt(grown)} s`);
  } finally {
    await sql.end({ timeout: 1 });
  }
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      clients: { type: 'string', default: '16' },
      agents: { type: 'string', default: '16' },
      sends: { type: 'string', default: '2000' },
      rounds: { type: 'string', default: '5' },
      records: { type: 'string', default: '100000' },
      only: { type: 'string' },
      servers: { type: 'string', default: '2' },
      statements: { type: 'boolean', default: false },
      'no-build': { type: 'boolean', default: false },
    },
  });
  const unavailable = postgresUnavailableReason();
  if (unavailable) {
    console.log(`postgres: skipped: ${unavailable}`);
    return;
  }
  if (!values['no-build']) {
    const built = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    if (built.status !== 0) throw new Error('npm run build failed');
  }
  const clients = Number(values.clients);
  if (!(Number(values.servers) >= 1)) throw new Error(`--servers must be 1 or more, got ${values.servers}`);
  const agents = Number(values.agents);
  const pg = await startThrowawayPostgres({ durable: true, settings: values.statements ? ['shared_preload_libraries=pg_stat_statements'] : [] });
  const port = new URL(pg.url).port;
  const admin = postgres(pg.url, { onnotice: () => {}, max: 1 });
  try {
    if (values.only !== 'memory') await benchSends(admin, pg.urlOf, port, { clients, agents, sends: Number(values.sends), rounds: Number(values.rounds), servers: Number(values.servers), statements: values.statements });
    if (values.only !== 'sends') await benchMemory(admin, pg.urlOf, { clients, agents, records: Number(values.records) });
  } finally {
    await admin.end({ timeout: 1 });
    pg.stop();
  }
}
