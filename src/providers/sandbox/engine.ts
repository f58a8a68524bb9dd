import type { SandboxRuntime } from '../../core/ports/sandbox.js';
import type { VirtualTree } from './virtual-tree.js';

/** What an engine gets for one run inside the worker. */
export interface EngineRun {
  code: string;
  tree: VirtualTree;
  nowMs: number;
  seed: Uint8Array;
  memoryLimitBytes: number;
  outputLimitBytes: number;
  /** Sends output to the host as it is produced. */
  write(stream: 'stdout' | 'stderr', text: string): void;
}

/**
 * The exit an engine answers when its interpreter ran out of memory: outside 0..255, so an agent's
 * own `exit 137` stays an ordinary exit whose changes are kept.
 */
export const OUT_OF_MEMORY = -137;

/** How the run ended by itself: its exit code, or {@link OUT_OF_MEMORY}. */
export interface EngineExit {
  exitCode: number;
}

/** One interpreter kind: `prepare` makes a fresh interpreter ready ahead of time; `run` uses it once. */
export interface Engine {
  readonly runtime: SandboxRuntime;
  /** Starts loading the next run's interpreter (idempotent). */
  prepare(): void;
  /** Resolves once the next run's interpreter is loaded (the run's timeout starts after it). */
  ready(): Promise<void>;
  run(run: EngineRun): Promise<EngineExit>;
}

/** The working directory of every run (created if missing). */
export const WORKDIR = '/home/agent';
