import type { ServiceIdentifier } from '../shared/di.js';

/** Work the clock runs when its time comes; awaited before the next due timer runs. */
export type TimerCallback = () => void | Promise<void>;

/**
 * The service's source of time and its timer primitive. Simulated clocks move only when told and
 * run due timers in (time, registration) order; the system clock uses real time and real timers.
 */
export interface Clock {
  /** Current service time in milliseconds since the Unix epoch. */
  now(): number;
  /**
   * Runs `callback` once the clock reaches `atMs`. The system clock runs an already-due timer on the
   * next turn; a simulated clock runs due timers only when it is advanced (by any amount, even 0).
   */
  setTimer(atMs: number, callback: TimerCallback): TimerHandle;
}

/** Cancels a timer that has not fired yet. */
export interface TimerHandle {
  cancel(): void;
}

/** Injection token of {@link Clock}. */
export const Clock = Symbol.for('agent-services/Clock') as ServiceIdentifier<Clock>;
