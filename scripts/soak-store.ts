/**
 * Crash soak of `serve --data`: concurrent clients send keyed book transfers, on-chain sends,
 * emails and clock moves while the server is killed with SIGKILL at seeded random moments and
 * restarted. After every restart it checks that each acknowledged request replays (never re-runs),
 * that each request has its effect exactly once, that the wallet ledger identity holds and that
 * no scheduled confirmation is lost or applied twice.
 *
 * `npm run soak [-- --kills N --seed S --clients C --cli PATH]` (default 200 kills); test/providers/store/
 * crash.test.ts runs 10.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual, parseArgs } from 'node:util';

/** Options of {@link crashSoak}. */
export interface SoakOptions {
  /** How many times the server is killed. */
  kills: number;
  /** Seed of the kill moments and of the clients' choices. */
  seed: number;
  /** Concurrent clients per round (default 4). */
  clients?: number;
  /** The built command line entry (dist/cli/main.js). */
  cli: string;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
}

/** What a soak did and found; `problems` is empty when every check held. */
export interface SoakReport {
  kills: number;
  requests: number;
  acknowledgedBeforeKill: number;
  replayed: number;
  problems: string[];
}

type Kind = 'book' | 'chain' | 'email' | 'advance';

interface Operation {
  key: string;
  kind: Kind;
  agent: number;
  path: string;
  body: Record<string, unknown>;
  /** The first answer the client saw, if any. */
  answer?: { status: number; body: unknown };
}

interface Agent {
  name: string;
  apiKey: string;
  handle: string;
  email: string;
}

/** sfc32-like small generator: the soak's own seeded choices (the server has its own). */
function generator(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

const CHAIN_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

class Server {
  private constructor(
    readonly child: ChildProcess,
    readonly url: string,
    readonly closed: Promise<void>,
  ) {}

  static async start(cli: string, database: string): Promise<Server> {
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--seed', '7', '--data', database], { stdio: ['ignore', 'pipe', 'pipe'] });
    let exit = '';
    const closed = new Promise<void>((resolve) =>
      child.once('close', (code, signal) => {
        exit = signal ? `signal ${signal}` : `code ${code}`;
        resolve();
      }),
    );
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /listening on (\S+)/.exec(stdout);
        if (match) resolve(match[1]!);
      });
      void closed.then(() => reject(new Error(`the server exited (${exit}) before listening: ${stderr || stdout}`)));
    });
    return new Server(child, url, closed);
  }

  async kill(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.closed;
  }
}

async function call(url: string, method: string, route: string, options: { body?: unknown; apiKey?: string; key?: string } = {}) {
  const headers: Record<string, string> = {};
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  if (options.key) headers['idempotency-key'] = options.key;
  const response = await fetch(`${url}${route}`, { method, headers, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : null, replayed: response.headers.get('idempotent-replayed') === 'true' };
}

/** `"12.345"` → 12345 × 10^(18-3): exact sums of decimal strings. */
function scaled(amount: string): bigint {
  const [whole, fraction = ''] = amount.split('.');
  return BigInt(whole!) * 10n ** 18n + BigInt((fraction + '0'.repeat(18)).slice(0, 18));
}

/** Runs the soak and reports what it found. */
export async function crashSoak(options: SoakOptions): Promise<SoakReport> {
  const log = options.log ?? (() => {});
  const random = generator(options.seed);
  const clients = options.clients ?? 4;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'store-soak-'));
  const database = path.join(dir, 'world.db');
  const operations: Operation[] = [];
  const problems: string[] = [];
  const report: SoakReport = { kills: 0, requests: 0, acknowledgedBeforeKill: 0, replayed: 0, problems };
  let server = await Server.start(options.cli, database);
  try {
    const agents: Agent[] = [];
    for (const name of ['ann', 'ben', 'cat', 'dan']) {
      const created = await call(server.url, 'POST', '/_sim/agents', { body: { name }, key: `agent-${name}` });
      const body = created.body as { api_key: string; handle: string; email: string };
      agents.push({ name, apiKey: body.api_key, handle: body.handle, email: body.email });
      for (const asset of ['usd', 'usdc']) {
        await call(server.url, 'POST', '/_sim/wallet/fund', { body: { handle: name, asset, amount: '1000000' }, key: `fund-${name}-${asset}` });
      }
    }

    const operation = (round: number, client: number, n: number): Operation => {
      const roll = random();
      const agent = Math.floor(random() * agents.length);
      const other = (agent + 1 + Math.floor(random() * (agents.length - 1))) % agents.length;
      const key = `r${round}-c${client}-${n}`;
      if (roll < 0.4) return { key, kind: 'book', agent, path: '/v1/wallet/send', body: { to: agents[other]!.handle, amount: `${1 + Math.floor(random() * 50)}.25`, asset: 'usd', memo: key } };
      if (roll < 0.65) return { key, kind: 'chain', agent, path: '/v1/wallet/send', body: { to: CHAIN_ADDRESS, amount: '1.5', asset: 'usdc', network: 'base', memo: key } };
      if (roll < 0.95) return { key, kind: 'email', agent, path: '/v1/email/send', body: { to: [agents[other]!.email], subject: key, text: `body of ${key}` } };
      return { key, kind: 'advance', agent, path: '/_sim/clock/advance', body: { seconds: 2 } };
    };
    const send = (url: string, op: Operation) => call(url, 'POST', op.path, { body: op.body, key: op.key, ...(op.kind === 'advance' ? {} : { apiKey: agents[op.agent]!.apiKey }) });

    for (let round = 1; round <= options.kills; round++) {
      // Clients fire until the kill; each answer that arrives is an acknowledgement to honour.
      let stopped = false;
      const started = operations.length;
      const loops = Array.from({ length: clients }, async (_, client) => {
        for (let n = 0; !stopped; n++) {
          const op = operation(round, client, n);
          operations.push(op);
          try {
            const answer = await send(server.url, op);
            op.answer = { status: answer.status, body: answer.body };
          } catch {
            return; // the server died under this request: its outcome is unknown
          }
        }
      });
      const waitMs = 50 + Math.floor(random() * 450);
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      stopped = true;
      await server.kill();
      report.kills++;
      await Promise.all(loops);
      const thisRound = operations.slice(started);
      report.acknowledgedBeforeKill += thisRound.filter((op) => op.answer).length;
      server = await Server.start(options.cli, database);

      // Every acknowledged request replays exactly; every unknown one is retried once and then replays.
      for (const op of thisRound) {
        const again = await send(server.url, op);
        if (op.answer) {
          report.replayed++;
          if (!again.replayed || again.status !== op.answer.status || !isDeepStrictEqual(again.body, op.answer.body)) {
            problems.push(
              `round ${round}: ${op.key} (${op.kind}) was answered ${op.answer.status} before the kill but after restart answered ${again.status}${again.replayed ? ' (replayed, different body)' : ' without replaying'}`,
            );
          }
        } else {
          op.answer = { status: again.status, body: again.body };
          const third = await send(server.url, op);
          if (!third.replayed || !isDeepStrictEqual(third.body, again.body)) problems.push(`round ${round}: retried ${op.key} does not replay`);
        }
      }
      report.requests = operations.length;
      if (round % 10 === 0 || round === options.kills) {
        await checkWorld(server.url, agents, operations, problems, `round ${round}`);
        log(`round ${round}: ${operations.length} requests, ${report.acknowledgedBeforeKill} acknowledged before a kill, ${problems.length} problems`);
      }
      if (problems.length > 20) break;
    }
    return report;
  } finally {
    await server.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Effects exactly once, ledger identity, every confirmation applied once. */
async function checkWorld(url: string, agents: Agent[], operations: Operation[], problems: string[], at: string): Promise<void> {
  // Far enough for every on-chain confirmation (the slowest chain confirms after 24 s).
  await call(url, 'POST', '/_sim/clock/advance', { body: { seconds: 120 } });
  const memos = new Map<string, number>();
  const subjects = new Map<string, number>();
  const statusOf = new Map<string, string>();
  for (const agent of agents) {
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const page = (await call(url, 'GET', `/v1/wallet/transactions?direction=out&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { apiKey: agent.apiKey })).body as {
        transactions: Array<{ id: string; memo: string; status: string }>;
        next_cursor: string | null;
      };
      for (const record of page.transactions) {
        memos.set(record.memo, (memos.get(record.memo) ?? 0) + 1);
        statusOf.set(record.id, record.status);
      }
      cursor = page.next_cursor;
    }
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const page = (await call(url, 'GET', `/v1/email/messages?folder=sent&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { apiKey: agent.apiKey })).body as {
        messages: Array<{ subject: string }>;
        next_cursor: string | null;
      };
      for (const message of page.messages) subjects.set(message.subject, (subjects.get(message.subject) ?? 0) + 1);
      cursor = page.next_cursor;
    }
  }
  for (const op of operations) {
    if (!op.answer || op.kind === 'advance') continue;
    const expected = op.answer.status === 201 ? 1 : 0;
    const found = (op.kind === 'email' ? subjects : memos).get(op.key) ?? 0;
    if (found !== expected) problems.push(`${at}: ${op.key} (${op.kind}, answered ${op.answer.status}) has ${found} effects, expected ${expected}`);
  }
  const known = new Set(operations.map((op) => op.key));
  for (const memo of memos.keys()) if (!known.has(memo)) problems.push(`${at}: a transfer with memo ${memo} that no request made`);

  const ledger = (await call(url, 'GET', '/_sim/wallet/ledger')).body as { assets: Record<string, { funded_in: string; held: string; fees_collected: string; sent_out: string }> };
  for (const [asset, entry] of Object.entries(ledger.assets)) {
    if (scaled(entry.funded_in) !== scaled(entry.held) + scaled(entry.fees_collected) + scaled(entry.sent_out)) {
      problems.push(`${at}: ledger identity broken for ${asset}: ${JSON.stringify(entry)}`);
    }
  }

  const settlements = new Map<string, number>();
  for (let after = 0; ; ) {
    const page = (await call(url, 'GET', `/_sim/events?after=${after}&limit=1000`)).body as { events: Array<{ seq: number; type: string; data: { transaction_id?: string } }>; has_more: boolean };
    for (const event of page.events) {
      if (event.type === 'wallet.transaction.updated') settlements.set(event.data.transaction_id!, (settlements.get(event.data.transaction_id!) ?? 0) + 1);
    }
    if (!page.has_more || page.events.length === 0) break;
    after = page.events[page.events.length - 1]!.seq;
  }
  for (const op of operations) {
    if (op.kind !== 'chain' || op.answer?.status !== 201) continue;
    const id = (op.answer.body as { transaction_id: string }).transaction_id;
    if (statusOf.get(id) === 'pending') problems.push(`${at}: on-chain send ${id} (${op.key}) is still pending: its confirmation was lost`);
    const count = settlements.get(id) ?? 0;
    if (count !== 1) problems.push(`${at}: on-chain send ${id} (${op.key}) was settled ${count} times`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { kills: { type: 'string', default: '200' }, seed: { type: 'string', default: '1' }, clients: { type: 'string', default: '4' }, cli: { type: 'string' } },
  });
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  // --cli runs a copy of the build (e.g. cp -r dist .soak-dist), so a rebuild during a long soak
  // cannot swap modules under a restarting server.
  if (!values.cli) {
    const { ensureBuilt } = await import('../test/cli/ensure-built.js');
    await ensureBuilt();
  }
  const report = await crashSoak({
    kills: Number(values.kills),
    seed: Number(values.seed),
    clients: Number(values.clients),
    cli: values.cli ? path.resolve(values.cli) : path.join(root, 'dist/cli/main.js'),
    log: (line) => console.log(line),
  });
  console.log(`${report.kills} kills, ${report.requests} requests, ${report.acknowledgedBeforeKill} acknowledged before a kill and replayed after it`);
  for (const problem of report.problems) console.log(`PROBLEM ${problem}`);
  console.log(report.problems.length === 0 ? 'soak: every check held' : `soak: ${report.problems.length} problems`);
  process.exitCode = report.problems.length === 0 ? 0 : 1;
}
