import type { SandboxChanges, SandboxEntry, SandboxRuntime } from '../../core/ports/sandbox.js';

/** Host → worker: run one request, or get an interpreter ready. */
export type ToWorker =
  | {
      type: 'run';
      runtime: SandboxRuntime;
      code: string;
      entries: SandboxEntry[];
      quotaBytes: number;
      memoryLimitBytes: number;
      outputLimitBytes: number;
      nowMs: number;
      seed: Uint8Array;
    }
  | { type: 'prepare'; runtime: SandboxRuntime };

/** Worker → host: output as it comes, the start of the code, the end, or a memory-limit breach. */
export type FromWorker = { type: 'out'; stream: 'stdout' | 'stderr'; text: string } | { type: 'started' } | { type: 'oom' } | { type: 'done'; exitCode: number; changes: SandboxChanges | null; note?: string };
