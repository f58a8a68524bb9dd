import { injectable } from '../../core/shared/di.js';
import type { Clock, TimerCallback, TimerHandle } from '../../core/ports/clock.js';

/** setTimeout's longest delay; longer waits are chained. */
const MAX_DELAY_MS = 2_147_483_647;

/** Real time and real timers, for running the service live. Timers never keep the process alive. */
@injectable()
export class SystemClock implements Clock {
  now(): number {
    return Date.now();
  }

  setTimer(atMs: number, callback: TimerCallback): TimerHandle {
    let handle: NodeJS.Timeout | undefined;
    const arm = (): void => {
      const delay = Math.max(0, atMs - Date.now());
      handle = setTimeout(delay > MAX_DELAY_MS ? arm : () => void callback(), Math.min(delay, MAX_DELAY_MS));
      handle.unref();
    };
    arm();
    return { cancel: () => clearTimeout(handle) };
  }
}
