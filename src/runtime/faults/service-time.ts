import type { Clock } from '../../core/ports/clock.js';

/**
 * Resolves once `ms` of service time have passed: on the simulated clock, when it is advanced
 * past that instant; on the system clock, after that much real time.
 */
export function serviceTimePassed(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => {
    clock.setTimer(clock.now() + ms, resolve);
  });
}
