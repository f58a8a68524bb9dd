import type { Sandbox, SandboxRequest, SandboxResult, SandboxRuntime } from '../../core/ports/sandbox.js';
import { WorkerPool, type WorkerPoolOptions } from './worker-pool.js';

/**
 * The default sandbox: in-process WebAssembly and TypeScript interpreters (QuickJS, Pyodide,
 * just-bash) on a pool of worker threads; no native build, no child process.
 */
export class WasmSandbox implements Sandbox {
  readonly kind = 'wasm';
  private readonly pool: WorkerPool;

  constructor(options: WorkerPoolOptions = {}) {
    this.pool = new WorkerPool(options);
  }

  /** Loads interpreters ahead of the first runs (`workers` of the pool, default all). */
  warm(runtimes: SandboxRuntime[] = ['typescript', 'bash', 'python'], workers?: number): void {
    this.pool.warm(runtimes, workers);
  }

  run(request: SandboxRequest): Promise<SandboxResult> {
    return this.pool.run(request);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
