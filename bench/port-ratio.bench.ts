/**
 * `npm run bench -- port-ratio [--before DIR] [--rounds R] [--sends N] [--durable-sends N] [--no-build]`:
 * what making the store port asynchronous (commit 0f6498e) cost the stores that run in the
 * process: this tree against DIR, a worktree of the last synchronous commit, in the same run.
 *
 *     git worktree add ../wt-before 8aaf6cb && cp -al node_modules ../wt-before/node_modules
 *
 * (DIR defaults to ../wt-before; both trees are built first with `npm run build`.)
 *
 * - Memory store, in-process sends, as `npm run bench -- wallet` takes them: alice sends bob
 *   0.01 USD through `runtime.agent(key).wallet.send` (JSON round trip, dispatcher, validation,
 *   service, store transaction), one at a time and 64 in flight, on a fresh world after a warm-up
 *   world of 5,000 sends.
 * - SQLite durable sends, as `npm run bench -- store` takes them: keyed book transfers through
 *   `runtime.dispatch` from 64 concurrent in-process callers over 8 agents, on `SqliteStore.open`
 *   (group commit, each answered after its fsync), after 500 warm-up sends.
 *
 * Each (tree, store) runs in a child process of its own, loading that tree's built `dist/`; the
 * children stay up and take turns, round by round, the order of the two trees alternating. Sends
 * per second and CPU time per send (the child's own `process.cpuUsage()`, steadier than wall time
 * on a shared machine) are compared as medians.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

type Kind = 'memory' | 'sqlite';

/** What a child answers for one round. */
interface RoundResult {
  /** Named rates (sends/s) and CPU µs per send. */
  rates: Record<string, number>;
  cpu: Record<string, number>;
}

const AGENTS = ['ann', 'ben', 'cat', 'dan', 'eve', 'fay', 'gus', 'hal'];

// ---------------------------------------------------------------------------------------------
// Child: one tree, one store.

/** Minimal shapes of the built package, the same in both trees. */
interface Built {
  createRuntime(options: Record<string, unknown>): Promise<{
    simClient(): { createAgent(body: Record<string, unknown>): Promise<{ api_key: string }> };
    agent(key: string): { wallet: { send(body: Record<string, unknown>): Promise<unknown> } };
    createAgent(body: Record<string, unknown>): Promise<{ api_key: string }>;
    dispatch(request: Record<string, unknown>): Promise<{ status: number }>;
    close(): Promise<void>;
  }>;
}

async function child(root: string, kind: Kind): Promise<void> {
  const built = (await import(pathToFileURL(path.join(root, 'dist/index.js')).href)) as Built;
  const timed = async (work: () => Promise<void>, count: number): Promise<{ rate: number; cpu: number }> => {
    const cpu = process.cpuUsage();
    const start = performance.now();
    await work();
    const seconds = (performance.now() - start) / 1000;
    const used = process.cpuUsage(cpu);
    return { rate: count / seconds, cpu: (used.user + used.system) / count };
  };

  let round: (sends: number) => Promise<RoundResult>;
  let cleanup = async () => {};
  if (kind === 'memory') {
    // As bench/wallet.bench.ts: a warm-up world, then a fresh pair measured.
    const pair = async () => {
      const runtime = await built.createRuntime({ seed: 1 });
      const sim = runtime.simClient();
      const a = await sim.createAgent({ name: 'alice', balances: { usd: '100000000', usdc: '100000000' } });
      await sim.createAgent({ name: 'bob', balances: { usd: '100000000' } });
      return runtime.agent(a.api_key);
    };
    const warm = await pair();
    for (let i = 0; i < 5_000; i++) await warm.wallet.send({ to: 'bob', amount: '0.01', asset: 'usd' });
    const alice = await pair();
    const batch = 64;
    round = async (sends) => {
      const sequential = await timed(async () => {
        for (let i = 0; i < sends; i++) await alice.wallet.send({ to: 'bob', amount: '0.01', asset: 'usd' });
      }, sends);
      const concurrent = await timed(async () => {
        for (let i = 0; i < sends; i += batch) {
          await Promise.all(Array.from({ length: Math.min(batch, sends - i) }, () => alice.wallet.send({ to: 'bob', amount: '0.01', asset: 'usd' })));
        }
      }, sends);
      return { rates: { sequential: sequential.rate, concurrent: concurrent.rate }, cpu: { sequential: sequential.cpu, concurrent: concurrent.cpu } };
    };
  } else {
    // As bench/store.bench.ts: keyed dispatches from 64 concurrent callers on a SQLite file.
    const { SqliteStore } = (await import(pathToFileURL(path.join(root, 'dist/providers/store/sqlite-store.js')).href)) as {
      SqliteStore: { open(file: string): unknown };
    };
    const dir = mkdtempSync(path.join(os.tmpdir(), 'port-ratio-'));
    const runtime = await built.createRuntime({ seed: 1, store: SqliteStore.open(path.join(dir, 'world.db')) });
    const keys: string[] = [];
    for (const name of AGENTS) keys.push((await runtime.createAgent({ name, balances: { usd: '100000000' } })).api_key);
    let tags = 0;
    const sendRate = async (sends: number, clients: number) => {
      const tag = `t${tags++}`;
      let next = 0;
      let failures = 0;
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
      if (failures > 0) throw new Error(`${failures} sends failed`);
    };
    await sendRate(500, 64);
    round = async (sends) => {
      const durable = await timed(() => sendRate(sends, 64), sends);
      return { rates: { durable: durable.rate }, cpu: { durable: durable.cpu } };
    };
    cleanup = async () => {
      await runtime.close();
      rmSync(dir, { recursive: true, force: true });
    };
  }
  process.on('message', (message: { sends?: number; stop?: boolean }) => {
    if (message.stop) {
      void cleanup().then(() => process.exit(0));
      return;
    }
    void round(message.sends!).then(
      (result) => process.send!(result),
      (error: unknown) => {
        process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
        process.exit(1);
      },
    );
  });
  process.send!({ ready: true });
}

// ---------------------------------------------------------------------------------------------
// Parent

interface Target {
  tree: 'before' | 'now';
  kind: Kind;
  child: ChildProcess;
}

function message<T>(target: Target): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`${target.tree} ${target.kind} child exited (${code})`));
    target.child.once('exit', onExit);
    target.child.once('message', (answer: T) => {
      target.child.off('exit', onExit);
      resolve(answer);
    });
  });
}

async function startTarget(tree: 'before' | 'now', root: string, kind: Kind): Promise<Target> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: { ...process.env, PORT_RATIO_ROOT: root, PORT_RATIO_KIND: kind },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const target = { tree, kind, child };
  await message(target);
  return target;
}

function build(root: string): void {
  const result = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) throw new Error(`npm run build failed in ${root}`);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export async function run(args: string[]): Promise<void> {
  const here = fileURLToPath(new URL('..', import.meta.url));
  const { values } = parseArgs({
    args,
    options: {
      before: { type: 'string', default: path.resolve(here, '../wt-before') },
      rounds: { type: 'string', default: '6' },
      sends: { type: 'string', default: '4000' },
      'durable-sends': { type: 'string', default: '4000' },
      only: { type: 'string' },
      'no-build': { type: 'boolean', default: false },
    },
  });
  const before = path.resolve(values.before);
  if (!existsSync(path.join(before, 'package.json'))) {
    console.log(`port-ratio: no tree at ${before}; make one: git worktree add ${before} 8aaf6cb && cp -al node_modules ${before}/node_modules`);
    process.exitCode = 2;
    return;
  }
  if (!values['no-build']) {
    build(here);
    build(before);
  }
  const head = (root: string) => spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim();
  const dirty = spawnSync('git', ['status', '--porcelain', '--', 'src'], { cwd: here, encoding: 'utf8' }).stdout.trim() !== '';
  const rounds = Number(values.rounds);
  const kinds: Kind[] = values.only === 'memory' ? ['memory'] : values.only === 'sqlite' ? ['sqlite'] : ['memory', 'sqlite'];
  const targets: Target[] = [];
  try {
    for (const kind of kinds)
      for (const [tree, root] of [
        ['before', before],
        ['now', here],
      ] as const)
        targets.push(await startTarget(tree, root, kind));
    console.log(
      `port-ratio: ${head(here)}${dirty ? ' (with uncommitted changes in src/)' : ''} against ${head(before)} (${before}), ` +
        `${rounds} interleaved rounds; in-process sends ${fmt(Number(values.sends))} a round (memory store), durable sends ${fmt(Number(values['durable-sends']))} a round (SQLite)`,
    );
    const results = new Map<string, RoundResult[]>();
    for (let round = 0; round < rounds; round++) {
      const line: string[] = [];
      for (const kind of kinds) {
        const order: Array<'before' | 'now'> = round % 2 === 0 ? ['before', 'now'] : ['now', 'before'];
        for (const tree of order) {
          const target = targets.find((candidate) => candidate.tree === tree && candidate.kind === kind)!;
          const answer = message<RoundResult>(target);
          target.child.send({ sends: Number(kind === 'memory' ? values.sends : values['durable-sends']) });
          const result = await answer;
          results.set(`${kind}:${tree}`, [...(results.get(`${kind}:${tree}`) ?? []), result]);
        }
        for (const name of Object.keys(results.get(`${kind}:now`)!.at(-1)!.rates)) {
          const now = results.get(`${kind}:now`)!.at(-1)!.rates[name]!;
          const was = results.get(`${kind}:before`)!.at(-1)!.rates[name]!;
          line.push(`${kind} ${name} ${fmt(was)} -> ${fmt(now)} (${fmt(now / was, 2)}x)`);
        }
      }
      console.log(`  round ${round + 1}: ${line.join('; ')}`);
    }
    console.log(`  medians of ${rounds} rounds (sends/s, CPU µs per send; ratio = now / before by rate, before / now by CPU):`);
    const labels: Record<string, string> = {
      'memory:sequential': 'memory store, in-process sends, one at a time',
      'memory:concurrent': 'memory store, in-process sends, 64 in flight',
      'sqlite:durable': 'SQLite durable keyed sends, 64 callers',
    };
    for (const kind of kinds) {
      const nowResults = results.get(`${kind}:now`)!;
      const beforeResults = results.get(`${kind}:before`)!;
      for (const name of Object.keys(nowResults[0]!.rates)) {
        const rate = (list: RoundResult[]) => median(list.map((result) => result.rates[name]!));
        const cpu = (list: RoundResult[]) => median(list.map((result) => result.cpu[name]!));
        const ratio = rate(nowResults) / rate(beforeResults);
        // The per-round ratios too: each pair ran back to back, so it shares the machine's load.
        const paired = median(nowResults.map((result, i) => result.rates[name]! / beforeResults[i]!.rates[name]!));
        console.log(
          `    ${labels[`${kind}:${name}`]!.padEnd(48)} before ${fmt(rate(beforeResults)).padStart(7)}/s ${fmt(cpu(beforeResults), 1).padStart(6)} µs, ` +
            `now ${fmt(rate(nowResults)).padStart(7)}/s ${fmt(cpu(nowResults), 1).padStart(6)} µs; ratio ${fmt(ratio, 2)}x by rate (median of paired rounds ${fmt(paired, 2)}x), ` +
            `${fmt(cpu(beforeResults) / cpu(nowResults), 2)}x by CPU (goal >= 0.85x: ${ratio >= 0.85 ? 'met' : 'NOT met'})`,
        );
      }
    }
  } finally {
    await Promise.all(
      targets.map(async (target) => {
        if (target.child.exitCode !== null) return;
        const exited = new Promise((resolve) => target.child.once('exit', resolve));
        target.child.send({ stop: true });
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
        if (target.child.exitCode === null) target.child.kill('SIGKILL');
      }),
    );
  }
}

if (process.env.PORT_RATIO_ROOT) await child(process.env.PORT_RATIO_ROOT, process.env.PORT_RATIO_KIND as Kind);
