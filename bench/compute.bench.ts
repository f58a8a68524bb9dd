/**
 * `npm run bench -- compute [--runs N] [--pool N] [--skip-bubblewrap] [--fs-only]`
 *
 * 1. Floor: a bare worker-thread round trip (postMessage there and back), p50/p99.
 * 2. Warm hello-world per runtime on the WebAssembly sandbox: the run's own time once its
 *    interpreter is loaded (`duration_ms`), p50/p99, and the ratio to the floor; end to end
 *    through the in-process client (snapshot of the files, run, event) as well.
 *    Goals: typescript <= 10 ms, bash <= 20 ms, python <= 50 ms.
 * 3. Cold start per runtime: a new sandbox's first run (worker start and interpreter load).
 * 4. Runs per second with the pool full (typescript and bash hello-worlds, `--pool` workers).
 * 5. Memory per warm interpreter: process RSS growth per worker holding one loaded interpreter.
 * 6. Filesystem write and read throughput through the API (PUT/GET of a 16 MB file over
 *    `runtime.fetch`, Base64 in JSON as the wire has it).
 * 7. Bubblewrap hello-world per runtime, when bwrap works here.
 */
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { createRuntime } from '../src/index.js';
import type { SandboxRequest, SandboxRuntime } from '../src/core/ports/sandbox.js';
import { BubblewrapSandbox, bubblewrapUnavailable } from '../src/providers/sandbox/bubblewrap-sandbox.js';
import { WasmSandbox } from '../src/providers/sandbox/wasm-sandbox.js';

function option(args: string[], name: string, fallback: string): string {
  const index = args.indexOf(`--${name}`);
  return index >= 0 && args[index + 1] !== undefined ? args[index + 1]! : fallback;
}

const MB = 1024 * 1024;
const fmt = (value: number, digits = 2) => value.toFixed(digits);
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1)))]!;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const HELLO: Record<SandboxRuntime, string> = {
  typescript: 'const who: string = "world"; console.log(`hello ${who}`)',
  bash: 'echo hello world',
  python: 'print("hello world")',
};

const request = (runtime: SandboxRuntime): SandboxRequest => ({
  runtime,
  code: HELLO[runtime],
  timeoutSeconds: 60,
  entries: [],
  quotaBytes: 1024 ** 3,
  memoryLimitBytes: 256 * MB,
  outputLimitBytes: MB,
  nowMs: Date.UTC(2026, 0, 1),
  seed: new Uint8Array(32),
});

async function floor(runs: number): Promise<number[]> {
  const worker = new Worker("require('node:worker_threads').parentPort.on('message', (m) => require('node:worker_threads').parentPort.postMessage(m))", { eval: true });
  const times: number[] = [];
  for (let i = 0; i < runs + 20; i++) {
    const start = performance.now();
    worker.postMessage({ i, text: 'hello world' });
    await new Promise((resolve) => worker.once('message', resolve));
    if (i >= 20) times.push(performance.now() - start);
  }
  await worker.terminate();
  return times;
}

export async function run(args: string[]): Promise<void> {
  if (args.includes('--fs-only')) return filesystem();
  const runs = Number(option(args, 'runs', '40'));
  const poolSize = Number(option(args, 'pool', String(availableParallelism())));
  console.log(`compute benchmark: ${runs} runs per measurement, pool ${poolSize}, ${availableParallelism()} CPUs, node ${process.version}`);

  const floorTimes = await floor(200);
  const floorP50 = percentile(floorTimes, 0.5);
  console.log(`\nfloor: bare worker round trip p50 ${fmt(floorP50, 3)} ms, p99 ${fmt(percentile(floorTimes, 0.99), 3)} ms`);

  // Cold start: each runtime on a sandbox of its own (worker start, module load, interpreter load).
  console.log('\ncold start (new sandbox, first run end to end):');
  for (const runtime of ['typescript', 'bash', 'python'] as const) {
    const sandbox = new WasmSandbox({ size: 1 });
    const start = performance.now();
    const result = await sandbox.run(request(runtime));
    console.log(`  ${runtime.padEnd(10)} ${fmt(performance.now() - start, 0)} ms (exit ${result.exitCode})`);
    await sandbox.close();
  }

  // Warm: one worker, its next interpreter loaded before each run; duration_ms is the run itself.
  console.log('\nwarm hello-world (one worker, interpreter loaded ahead):');
  const goals: Record<SandboxRuntime, number> = { typescript: 10, bash: 20, python: 50 };
  for (const runtime of ['typescript', 'bash', 'python'] as const) {
    const sandbox = new WasmSandbox({ size: 1 });
    sandbox.warm([runtime], 1);
    await sandbox.run(request(runtime));
    const own: number[] = [];
    const endToEnd: number[] = [];
    const count = runtime === 'python' ? Math.min(runs, 8) : runs;
    for (let i = 0; i < count; i++) {
      // Give the worker time to load the next interpreter, so the figure is the warm run.
      await sleep(runtime === 'python' ? 4000 : 30);
      const start = performance.now();
      const result = await sandbox.run(request(runtime));
      endToEnd.push(performance.now() - start);
      own.push(result.durationMs);
    }
    const p50 = percentile(own, 0.5);
    console.log(
      `  ${runtime.padEnd(10)} run p50 ${fmt(p50, 0)} ms, p99 ${fmt(percentile(own, 0.99), 0)} ms (goal <= ${goals[runtime]} ms: ${p50 <= goals[runtime] ? 'met' : 'NOT met'}); ` +
        `end to end p50 ${fmt(percentile(endToEnd, 0.5), 1)} ms, p99 ${fmt(percentile(endToEnd, 0.99), 1)} ms; ${fmt(percentile(endToEnd, 0.5) / floorP50, 0)}x the floor`,
    );
    await sandbox.close();
  }

  // Throughput with every worker busy.
  console.log(`\nthroughput with the pool full (${poolSize} workers):`);
  for (const runtime of ['typescript', 'bash'] as const) {
    const sandbox = new WasmSandbox({ size: poolSize });
    sandbox.warm([runtime]);
    await Promise.all(Array.from({ length: poolSize * 2 }, () => sandbox.run(request(runtime))));
    const total = runs * 4;
    const start = performance.now();
    await Promise.all(Array.from({ length: total }, () => sandbox.run(request(runtime))));
    const seconds = (performance.now() - start) / 1000;
    console.log(`  ${runtime.padEnd(10)} ${fmt(total / seconds, 1)} runs/s (${total} runs)`);
    await sandbox.close();
  }

  // Memory per warm interpreter: RSS growth per worker holding one loaded interpreter.
  console.log('\nmemory per warm interpreter (process RSS growth per worker):');
  for (const runtime of ['typescript', 'bash', 'python'] as const) {
    const workers = 2;
    (globalThis as { gc?: () => void }).gc?.();
    const before = process.memoryUsage().rss;
    const sandbox = new WasmSandbox({ size: workers });
    await Promise.all(Array.from({ length: workers }, () => sandbox.run(request(runtime))));
    await sleep(runtime === 'python' ? 8000 : 1000);
    const after = process.memoryUsage().rss;
    console.log(`  ${runtime.padEnd(10)} ${fmt((after - before) / workers / MB, 0)} MB per worker (worker, engine code and one spare interpreter)`);
    await sandbox.close();
    await sleep(500);
  }

  await filesystem();
  if (args.includes('--skip-bubblewrap')) return;
  await bubblewrap(runs);
}

/** Filesystem write and read throughput through the API. */
async function filesystem(): Promise<void> {
  const runtime = await createRuntime({ compute: { poolSize: 1 } });
  const agent = await runtime.createAgent({ name: 'bench' });
  const bytes = Buffer.alloc(16 * MB, 7);
  const body = JSON.stringify({ path: '/bench/blob.bin', content: bytes.toString('base64') });
  const headers = { authorization: `Bearer ${agent.api_key}`, 'content-type': 'application/json' };
  const writes: number[] = [];
  const reads: number[] = [];
  for (let i = 0; i < 5; i++) {
    let start = performance.now();
    const put = await runtime.fetch(new Request('http://bench/v1/compute/fs', { method: 'PUT', headers, body }));
    await put.arrayBuffer();
    writes.push(performance.now() - start);
    start = performance.now();
    const get = await runtime.fetch(new Request('http://bench/v1/compute/fs/content?path=/bench/blob.bin', { headers }));
    await get.json();
    reads.push(performance.now() - start);
  }
  console.log(`\nfilesystem through the API (16 MB file, Base64 JSON): write ${fmt(16 / (percentile(writes, 0.5) / 1000), 0)} MB/s, read ${fmt(16 / (percentile(reads, 0.5) / 1000), 0)} MB/s (p50 of 5)`);
  await runtime.close();
}

/** Hello-world latency of real processes under bubblewrap. */
async function bubblewrap(runs: number): Promise<void> {
  const problem = bubblewrapUnavailable();
  if (problem) {
    console.log(`\nbubblewrap: skipped (${problem})`);
    return;
  }
  console.log('\nbubblewrap hello-world (real processes, no warm state):');
  const bwrap = new BubblewrapSandbox({ size: 1 });
  for (const runtime of ['typescript', 'bash', 'python'] as const) {
    const times: number[] = [];
    for (let i = 0; i < Math.min(runs, 10); i++) {
      const start = performance.now();
      await bwrap.run(request(runtime));
      times.push(performance.now() - start);
    }
    console.log(`  ${runtime.padEnd(10)} p50 ${fmt(percentile(times, 0.5), 0)} ms, p99 ${fmt(percentile(times, 0.99), 0)} ms`);
  }
  await bwrap.close();
}
