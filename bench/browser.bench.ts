/**
 * `npm run bench -- browser [--sessions N] [--round-trips N]`: browser sessions on both providers.
 * - create → first CDP answer: POST a session, open its ws_endpoint, time until the answer to
 *   `Browser.getVersion` (p50/p99);
 * - screenshot latency through the API (p50/p99);
 * - memory per session: proportional set size (PSS) of the session's processes (Chromium: its whole process
 *   group; simulated: its host process), averaged over open sessions;
 * - one CDP round trip (`Browser.getVersion`) through the service's proxy against the same call
 *   straight to Chromium's own DevTools socket (the floor), p50/p99 and the ratio.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { createRuntime, serve, type AgentClient } from '../src/index.js';
import { findChromium } from '../src/providers/browser/find-chromium.js';

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

const ms = (value: number) => `${value.toFixed(value < 10 ? 3 : 1)} ms`;

/** A CDP client for timing: one socket, sequential commands. */
async function open(url: string): Promise<{ call(method: string): Promise<void>; close(): void }> {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let id = 0;
  const waiting = new Map<number, () => void>();
  socket.on('message', (data: Buffer) => {
    const message = JSON.parse(data.toString()) as { id?: number };
    if (message.id !== undefined) waiting.get(message.id)?.();
  });
  return {
    call: (method) =>
      new Promise((resolve) => {
        const current = ++id;
        waiting.set(current, resolve);
        socket.send(JSON.stringify({ id: current, method }));
      }),
    close: () => socket.close(),
  };
}

/** Proportional set size (shared pages split between their users) of every process whose command line matches. */
function pssKb(match: (args: string) => boolean): { kb: number; processes: number } {
  const lines = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n');
  let kb = 0;
  let processes = 0;
  for (const line of lines) {
    const found = /^\s*(\d+)\s+(.*)$/.exec(line);
    if (!found || !match(found[2]!)) continue;
    try {
      const rollup = readFileSync(`/proc/${found[1]}/smaps_rollup`, 'utf8');
      kb += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      processes++;
    } catch {
      // the process ended meanwhile
    }
  }
  return { kb, processes };
}

async function measure(provider: 'simulated' | 'chromium', sessions: number, roundTrips: number): Promise<void> {
  const runtime = await createRuntime({ seed: 1, browser: { provider, maxSessionsPerAgent: sessions + 1, maxSessions: sessions + 1 } });
  const server = await serve(runtime, { port: 0 });
  const agent: AgentClient = runtime.agent((await runtime.createAgent({ name: 'bench' })).api_key);
  console.log(`\n${provider}`);
  try {
    const firstAnswer: number[] = [];
    const created: string[] = [];
    for (let i = 0; i < sessions; i++) {
      const start = performance.now();
      const session = await agent.browser.createSession({});
      const client = await open(session.ws_endpoint);
      await client.call('Browser.getVersion');
      firstAnswer.push(performance.now() - start);
      client.close();
      created.push(session.session_id);
    }
    console.log(`  create → first CDP answer  p50 ${ms(percentile(firstAnswer, 50))}  p99 ${ms(percentile(firstAnswer, 99))}  (n=${sessions}, the first ${ms(firstAnswer[0]!)})`);

    const shots: number[] = [];
    for (let i = 0; i < 20; i++) {
      const start = performance.now();
      await agent.browser.screenshot(created[i % created.length]!);
      shots.push(performance.now() - start);
    }
    console.log(`  screenshot (API)           p50 ${ms(percentile(shots, 50))}  p99 ${ms(percentile(shots, 99))}`);

    const memory = provider === 'chromium' ? pssKb((args) => args.includes('--user-data-dir=') && args.includes('agent-services-bs_')) : pssKb((args) => args.includes('host-main.js'));
    const perSession = memory.kb / 1024 / (provider === 'chromium' ? sessions : Math.max(1, memory.processes));
    console.log(`  memory per session         ${perSession.toFixed(0)} MiB PSS (${memory.processes} processes for ${sessions} sessions${provider === 'simulated' ? ', one a warm spare' : ''})`);

    const proxied = await open((await agent.browser.getSession(created[0]!)).ws_endpoint);
    const viaProxy: number[] = [];
    for (let i = 0; i < roundTrips; i++) {
      const start = performance.now();
      await proxied.call('Browser.getVersion');
      viaProxy.push(performance.now() - start);
    }
    proxied.close();
    if (provider === 'chromium') {
      const profile = readdirSync(tmpdir()).find((name) => name.startsWith(`agent-services-${created[0]}-`))!;
      const [port, browserPath] = readFileSync(path.join(tmpdir(), profile, 'DevToolsActivePort'), 'utf8')
        .trim()
        .split('\n');
      const direct = await open(`ws://127.0.0.1:${port}${browserPath}`);
      const straight: number[] = [];
      for (let i = 0; i < roundTrips; i++) {
        const start = performance.now();
        await direct.call('Browser.getVersion');
        straight.push(performance.now() - start);
      }
      direct.close();
      const [p50Proxy, p50Direct] = [percentile(viaProxy, 50), percentile(straight, 50)];
      console.log(`  CDP round trip via proxy   p50 ${ms(p50Proxy)}  p99 ${ms(percentile(viaProxy, 99))}`);
      console.log(`  CDP round trip direct      p50 ${ms(p50Direct)}  p99 ${ms(percentile(straight, 99))}`);
      console.log(`  proxy adds                 ${ms(p50Proxy - p50Direct)} at p50 (ratio ${(p50Proxy / p50Direct).toFixed(2)}x, goal < 1 ms)`);
    } else {
      console.log(`  CDP round trip via proxy   p50 ${ms(percentile(viaProxy, 50))}  p99 ${ms(percentile(viaProxy, 99))} (service → host process over IPC)`);
    }
    for (const id of created) await agent.browser.deleteSession(id);
  } finally {
    await server.close();
    await runtime.close();
  }
}

/** Runs the benchmark. */
export async function run(args: string[]): Promise<void> {
  const option = (name: string, fallback: number) => {
    const index = args.indexOf(`--${name}`);
    return index >= 0 ? Number(args[index + 1]) : fallback;
  };
  const sessions = option('sessions', 5);
  const roundTrips = option('round-trips', 500);
  console.log(`browser sessions: ${sessions} sessions per provider, ${roundTrips} CDP round trips`);
  if (!args.includes('--chromium-only')) await measure('simulated', sessions, roundTrips);
  if (findChromium()) await measure('chromium', sessions, roundTrips);
  else console.log('\nchromium: skipped (no Chromium found)');
}
