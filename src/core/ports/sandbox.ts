import type { ServiceIdentifier } from '../shared/di.js';

/** The languages a run may use (DECISIONS.md). */
export type SandboxRuntime = 'python' | 'typescript' | 'bash';

/** One entry of the agent's tree as a run starts with it. */
export interface SandboxEntry {
  /** Normalised absolute path. */
  path: string;
  type: 'file' | 'directory';
  /** A file's bytes. */
  bytes?: Uint8Array;
  /** Last modification, ms since the epoch. */
  modifiedMs: number;
}

/** What a run did to the tree, applied only when the run exits by itself. */
export interface SandboxChanges {
  /** Paths that existed at the start and are gone (a directory with everything in it). */
  removed: string[];
  /** Directories that exist at the end and did not (as directories) at the start. */
  directories: string[];
  /** Files written during the run, with their final bytes. */
  files: Array<{ path: string; bytes: Uint8Array }>;
}

/** Everything a sandbox needs for one run. */
export interface SandboxRequest {
  runtime: SandboxRuntime;
  code: string;
  timeoutSeconds: number;
  /** The agent's tree (directories and files with their bytes). */
  entries: SandboxEntry[];
  /** Bytes the agent may keep in all; writes past it fail inside the run (ENOSPC). */
  quotaBytes: number;
  memoryLimitBytes: number;
  outputLimitBytes: number;
  /** The time the run reads, frozen (ms since the epoch). */
  nowMs: number;
  /** 32 bytes every random source of the run is seeded from. */
  seed: Uint8Array;
  /** Ends the run early (caller gone, runtime closing); the run keeps no changes. */
  signal?: AbortSignal;
}

/** How a run ended. */
export interface SandboxResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** Measured wall time of the run itself (not the queue). */
  durationMs: number;
  /** The run's changes when it exited by itself; null when it was ended (timeout, memory, abort). */
  changes: SandboxChanges | null;
}

/**
 * Runs untrusted code in a fresh interpreter over a copy of the agent's files, with a hard
 * timeout (exit 124) and memory limit (exit 137). Implementations: in-process WebAssembly
 * interpreters on worker threads, or real processes under bubblewrap.
 */
export interface Sandbox {
  /** Which sandbox this is (`wasm`, `bubblewrap`), for docs and logs. */
  readonly kind: string;
  /** Runs one request; never throws for anything the code does (that is the result). */
  run(request: SandboxRequest): Promise<SandboxResult>;
  /** Ends every run and releases workers or processes. */
  close(): Promise<void>;
}

/** Injection token of {@link Sandbox}. */
export const Sandbox = Symbol.for('agent-services/Sandbox') as ServiceIdentifier<Sandbox>;
