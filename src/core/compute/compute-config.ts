import type { ServiceIdentifier } from '../shared/di.js';

/** Compute options of `createRuntime({ compute })`. */
export interface ComputeOptions {
  /** Bytes of files one agent may keep (default 1 GiB). */
  quotaBytes?: number;
  /** Largest single write, decoded (default 100 MB, SPEC.md). */
  maxWriteBytes?: number;
  /** Memory one run may use before it is ended with 137 (default 256 MiB). */
  memoryLimitBytes?: number;
  /** Runs executing at once; later ones queue (default: the number of CPUs). */
  poolSize?: number;
  /**
   * Which sandbox runs code: `wasm` (default; in-process WebAssembly interpreters) or `bubblewrap`
   * (real node, python3 and bash under bwrap; refused at start when bwrap cannot run).
   */
  sandbox?: 'wasm' | 'bubblewrap';
}

/** The resolved compute configuration of one runtime. */
export interface ComputeConfig {
  readonly quotaBytes: number;
  readonly maxWriteBytes: number;
  readonly memoryLimitBytes: number;
  /** Each of stdout and stderr keeps at most this many bytes (DECISIONS.md: 1 MiB). */
  readonly outputLimitBytes: number;
}

/** Injection token of {@link ComputeConfig}. */
export const ComputeConfig = Symbol.for('agent-services/ComputeConfig') as ServiceIdentifier<ComputeConfig>;

/** DECISIONS.md's default filesystem quota, 1 GiB. */
export const DEFAULT_QUOTA_BYTES = 1024 ** 3;
/** SPEC.md's write limit, 100 MB (decimal, like the upload limit). */
export const DEFAULT_MAX_WRITE_BYTES = 100_000_000;
/** DECISIONS.md's default memory limit of a run, 256 MiB. */
export const DEFAULT_MEMORY_LIMIT_BYTES = 256 * 1024 ** 2;
/** DECISIONS.md's output cap per stream, 1 MiB. */
export const OUTPUT_LIMIT_BYTES = 1024 ** 2;

/** Resolves compute options. @throws RangeError on an impossible setting */
export function computeConfig(options: ComputeOptions = {}): ComputeConfig {
  const config: ComputeConfig = {
    quotaBytes: options.quotaBytes ?? DEFAULT_QUOTA_BYTES,
    maxWriteBytes: options.maxWriteBytes ?? DEFAULT_MAX_WRITE_BYTES,
    memoryLimitBytes: options.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT_BYTES,
    outputLimitBytes: OUTPUT_LIMIT_BYTES,
  };
  if (!(Number.isSafeInteger(config.quotaBytes) && config.quotaBytes >= 0)) throw new RangeError('compute.quotaBytes must be a non-negative integer');
  if (!(Number.isSafeInteger(config.maxWriteBytes) && config.maxWriteBytes >= 0)) throw new RangeError('compute.maxWriteBytes must be a non-negative integer');
  if (!(Number.isSafeInteger(config.memoryLimitBytes) && config.memoryLimitBytes >= 16 * 1024 ** 2)) throw new RangeError('compute.memoryLimitBytes must be an integer of at least 16 MiB');
  if (options.sandbox !== undefined && options.sandbox !== 'wasm' && options.sandbox !== 'bubblewrap') throw new RangeError('compute.sandbox must be "wasm" or "bubblewrap"');
  if (options.poolSize !== undefined && !(Number.isInteger(options.poolSize) && options.poolSize >= 1)) throw new RangeError('compute.poolSize must be a positive integer');
  return config;
}
