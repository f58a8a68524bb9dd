import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { SandboxChanges, SandboxRequest, SandboxRuntime } from '../../core/ports/sandbox.js';
import { startModuleWorker } from '../workers/module-worker.js';
import { OutputSink, appendLine } from './output-sink.js';
import { OUT_OF_MEMORY } from './engine.js';
import type { FromWorker, ToWorker } from './worker-protocol.js';

/** Longest wait for an interpreter to load before its run's own timeout starts counting. */
const LOAD_LIMIT_MS = 180_000;

/** How one run on the pool ended. */
export interface PoolOutcome {
  stdout: string;
  stderr: string;
  exitCode: number;
  durationMs: number;
  changes: SandboxChanges | null;
}

interface Slot {
  worker: Worker;
  busy: boolean;
  prepared: Set<SandboxRuntime>;
}

interface Task {
  request: SandboxRequest;
  resolve(outcome: PoolOutcome): void;
}

/** Options of {@link WorkerPool}. */
export interface WorkerPoolOptions {
  /** Runs at once (default: the number of CPUs). */
  size?: number;
  /** V8 heap a worker may use before it is ended with 137 (default: 256 MiB plus the interpreters' own). */
  memoryLimitBytes?: number;
}

/**
 * Worker threads that run agent code off the main thread, so a spinning run never blocks the
 * server: at most `size` at once, a FIFO queue beyond, a hard `terminate()` past the timeout
 * (124) or the memory limit (137), and a replacement worker for every one ended.
 */
export class WorkerPool {
  readonly size: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private readonly heapMb: number;
  private closed = false;

  constructor(options: WorkerPoolOptions = {}) {
    this.size = options.size ?? availableParallelism();
    this.heapMb = Math.ceil((options.memoryLimitBytes ?? 256 * 1024 ** 2) / 1024 ** 2) + 128;
  }

  /** Starts workers and loads interpreters ahead of the first runs. */
  warm(runtimes: SandboxRuntime[], workers = this.size): void {
    while (this.slots.length < Math.min(workers, this.size)) this.spawn();
    for (const slot of this.slots) for (const runtime of runtimes) this.prepare(slot, runtime);
  }

  /** Runs a request on the next free worker. */
  run(request: SandboxRequest): Promise<PoolOutcome> {
    if (this.closed) return Promise.resolve(ended('the sandbox pool is closed', 1));
    return new Promise((resolve) => {
      this.queue.push({ request, resolve });
      this.dispatch();
    });
  }

  /** Terminates every worker; queued runs end with exit 1. */
  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.resolve(ended('the sandbox pool is closed', 1));
    await Promise.all(this.slots.splice(0).map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const runtime = this.queue[0]!.request.runtime;
      const idle = this.slots.filter((slot) => !slot.busy);
      let slot = idle.find((candidate) => candidate.prepared.has(runtime)) ?? idle[0];
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      this.execute(slot, this.queue.shift()!);
    }
  }

  private spawn(): Slot {
    const worker = startModuleWorker(import.meta.url, 'sandbox-worker', {
      // The worker sees no environment variable of the server.
      env: {},
      resourceLimits: { maxOldGenerationSizeMb: this.heapMb },
      stdout: true,
      stderr: true,
    });
    worker.stdout.resume();
    worker.stderr.resume();
    worker.unref();
    const slot: Slot = { worker, busy: false, prepared: new Set() };
    worker.on('error', () => undefined);
    worker.on('exit', () => this.forget(slot));
    this.slots.push(slot);
    return slot;
  }

  private prepare(slot: Slot, runtime: SandboxRuntime): void {
    if (slot.prepared.has(runtime)) return;
    slot.prepared.add(runtime);
    slot.worker.postMessage({ type: 'prepare', runtime } satisfies ToWorker);
  }

  private forget(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    if (!this.closed) this.dispatch();
  }

  private execute(slot: Slot, task: Task): void {
    const { request } = task;
    slot.busy = true;
    slot.prepared.add(request.runtime);
    const stdout = new OutputSink(request.outputLimitBytes);
    const stderr = new OutputSink(request.outputLimitBytes);
    let startedAt = performance.now();
    let timer: NodeJS.Timeout | undefined;
    let settled = false;

    const finish = (exitCode: number, changes: SandboxChanges | null, reason?: string, keepWorker = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      slot.worker.off('message', onMessage);
      slot.worker.off('error', onError);
      slot.worker.off('exit', onExit);
      request.signal?.removeEventListener('abort', onAbort);
      const durationMs = Math.round(performance.now() - startedAt);
      let errText = stderr.text();
      if (stdout.truncated || stderr.truncated) errText = appendLine(errText, '[output truncated]');
      if (reason) errText = appendLine(errText, reason);
      if (keepWorker) {
        slot.busy = false;
      } else {
        this.forget(slot);
        void slot.worker.terminate();
      }
      task.resolve({ stdout: stdout.text(), stderr: errText, exitCode, durationMs, changes });
      this.dispatch();
    };
    const kill = (exitCode: number, reason: string) => finish(exitCode, null, reason);
    const onMessage = (message: FromWorker) => {
      if (message.type === 'out') (message.stream === 'stdout' ? stdout : stderr).push(message.text);
      else if (message.type === 'oom') kill(137, `killed: past the memory limit of ${Math.round(request.memoryLimitBytes / 1024 ** 2)} MiB`);
      else if (message.type === 'started') {
        clearTimeout(timer);
        startedAt = performance.now();
        timer = setTimeout(() => kill(124, `timed out after ${request.timeoutSeconds} s`), request.timeoutSeconds * 1000);
      } else if (message.type === 'done') {
        if (message.exitCode === OUT_OF_MEMORY) kill(137, `killed: past the memory limit of ${Math.round(request.memoryLimitBytes / 1024 ** 2)} MiB`);
        else finish(message.exitCode, message.changes, undefined, true);
      }
    };
    const onError = (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') kill(137, `killed: past the memory limit of ${Math.round(request.memoryLimitBytes / 1024 ** 2)} MiB`);
      else kill(1, `sandbox failed: ${error.message}`);
    };
    const onExit = () => kill(1, 'sandbox failed: the worker exited');
    const onAbort = () => kill(1, 'run cancelled');
    slot.worker.on('message', onMessage);
    slot.worker.on('error', onError);
    slot.worker.on('exit', onExit);
    request.signal?.addEventListener('abort', onAbort, { once: true });
    if (request.signal?.aborted) return onAbort();
    timer = setTimeout(() => kill(124, `timed out after ${request.timeoutSeconds} s (the interpreter did not load)`), LOAD_LIMIT_MS);
    const message: ToWorker = {
      type: 'run',
      runtime: request.runtime,
      code: request.code,
      entries: request.entries,
      quotaBytes: request.quotaBytes,
      memoryLimitBytes: request.memoryLimitBytes,
      outputLimitBytes: request.outputLimitBytes,
      nowMs: request.nowMs,
      seed: request.seed,
    };
    slot.worker.postMessage(message);
  }
}

function ended(reason: string, exitCode: number): PoolOutcome {
  return { stdout: '', stderr: `${reason}\n`, exitCode, durationMs: 0, changes: null };
}
