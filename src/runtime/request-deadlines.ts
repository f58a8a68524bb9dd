import { performance } from 'node:perf_hooks';
import type { CallDeadlines } from '../core/api/dispatcher.js';

/**
 * The real-time deadlines of API calls for `requestTimeoutMs`, on the process's monotonic clock.
 * @throws RangeError when `ms` is not a positive whole number of milliseconds
 */
export function requestDeadlines(ms: number | undefined): CallDeadlines | undefined {
  if (ms === undefined) return undefined;
  if (!Number.isInteger(ms) || ms <= 0) throw new RangeError(`requestTimeoutMs: expected a positive whole number of milliseconds, got ${ms}`);
  return { ms, now: () => performance.now(), after: (remaining) => AbortSignal.timeout(Math.ceil(remaining)) };
}
