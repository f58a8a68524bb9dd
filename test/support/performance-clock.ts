import { vi } from 'vitest';

/**
 * `performance.now()` that a test moves forward by hand (`pass(ms)`), on top of the real one, so a
 * cache's expiry is reached without sleeping and is never reached early on a slow machine.
 * Undone by `vi.restoreAllMocks()`.
 */
export function movablePerformanceClock(): { pass(ms: number): void } {
  const real = performance.now.bind(performance);
  let passed = 0;
  vi.spyOn(performance, 'now').mockImplementation(() => real() + passed);
  return { pass: (ms) => void (passed += ms) };
}
