import type { ServiceIdentifier } from '../shared/di.js';
import type { Clock } from './clock.js';

/**
 * A clock that moves only when told: the simulated clock. The control plane finds it through this
 * port (bound only when the runtime's clock offers it), never by asking what class the clock is.
 */
export interface ControllableClock extends Clock {
  /** Moves time forward by `seconds`, running every timer due by then in (time, registration) order. Resolves with the new time in ms. */
  advance(seconds: number): Promise<number>;
  /** Moves time forward to the ISO instant `iso`, running what falls due. Resolves with the new time in ms. */
  advanceTo(iso: string): Promise<number>;
  /** Sets the time without running timers (a restore puts the clock back where the snapshot was). */
  set(epochMs: number): void;
}

/** Injection token of {@link ControllableClock}. */
export const ControllableClock = Symbol.for('agent-services/ControllableClock') as ServiceIdentifier<ControllableClock>;

/** Whether a clock can be moved by the control plane. */
export function isControllableClock(clock: Clock): clock is ControllableClock {
  const candidate = clock as Partial<ControllableClock>;
  return typeof candidate.advance === 'function' && typeof candidate.advanceTo === 'function' && typeof candidate.set === 'function';
}
