import { injectable } from '../../core/shared/di.js';
import type { Clock, TimerCallback, TimerHandle } from '../../core/ports/clock.js';

/** setTimeout's longest delay; longer waits are chained. */
const MAX_DELAY_MS = 2_147_483_647;

/**
 * Real time and real timers, for running the service live. Timers never keep the process alive. A
 * timer whose work fails (a job that throws, a commit refused by a full disk) is reported to
 * `onTimerError` (stderr by default) instead of becoming an unhandled rejection that ends the server.
 */
@injectable()
export class SystemClock implements Clock {
  constructor(private readonly onTimerError: (error: unknown) => void = (error) => process.stderr.write(`timer failed: ${(error as Error)?.stack ?? String(error)}\n`)) {}

  now(): number {
    return Date.now();
  }

  setTimer(atMs: number, callback: TimerCallback): TimerHandle {
    let handle: NodeJS.Timeout | undefined;
    const arm = (): void => {
      const delay = Math.max(0, atMs - Date.now());
      const run = (): void => {
        try {
          Promise.resolve(callback()).catch(this.onTimerError);
        } catch (error) {
          this.onTimerError(error);
        }
      };
      handle = setTimeout(delay > MAX_DELAY_MS ? arm : run, Math.min(delay, MAX_DELAY_MS));
      handle.unref();
    };
    arm();
    return { cancel: () => clearTimeout(handle) };
  }
}
