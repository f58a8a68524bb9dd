import { performance } from 'node:perf_hooks';
import type { CallDeadlines } from '../core/api/dispatcher.js';
import { timeoutSignal } from '../providers/http/timeout-signal.js';

/**
 * The real-time deadlines of API calls for `requestTimeoutMs`, on the process's monotonic clock.
 * @throws RangeError when `ms` is not a positive whole number of milliseconds
 */
export function requestDeadlines(ms: number | undefined): CallDeadlines | undefined {
  if (ms === undefined) return undefined;
  if (!Number.isInteger(ms) || ms <= 0) throw new RangeError(`requestTimeoutMs: expected a positive whole number of milliseconds, got ${ms}`);
  // Not AbortSignal.timeout: each call combines this signal with its caller's through
  // AbortSignal.any, where Node can collect a timeout signal before it fires (timeoutSignal).
  return { ms, now: () => performance.now(), after: (remaining) => timeoutSignal(Math.ceil(remaining)).signal };
}
