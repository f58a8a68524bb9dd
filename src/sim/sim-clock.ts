import { injectable } from '../core/shared/di.js';
import type { TimerCallback, TimerHandle } from '../core/ports/clock.js';
import type { ControllableClock } from '../core/ports/controllable-clock.js';
import { LATEST_TIME_ISO, LATEST_TIME_MS, parseIso } from '../core/shared/time.js';

interface Timer {
  at: number;
  seq: number;
  callback: TimerCallback;
}

/** The default start of simulated time. */
export const DEFAULT_START_TIME = '2026-01-01T00:00:00.000Z';

/**
 * Simulated time: stands still until advanced. Advancing runs every due timer in (time,
 * registration) order, setting the clock to each timer's time while it runs, so work scheduled by
 * work runs too if it falls due before the target.
 */
@injectable()
export class SimClock implements ControllableClock {
  private current: number;
  private readonly timers: Timer[] = [];
  private nextSeq = 0;
  private advancing: Promise<void> = Promise.resolve();

  constructor(startMs: number = Date.parse(DEFAULT_START_TIME)) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  setTimer(atMs: number, callback: TimerCallback): TimerHandle {
    const timer: Timer = { at: atMs, seq: this.nextSeq++, callback };
    let index = this.timers.length;
    while (index > 0 && this.timers[index - 1]!.at > atMs) index--;
    this.timers.splice(index, 0, timer);
    return {
      cancel: () => {
        const position = this.timers.indexOf(timer);
        if (position >= 0) this.timers.splice(position, 1);
      },
    };
  }

  /** Moves time forward by `seconds` (>= 0), running due work. */
  advance(seconds: number): Promise<number> {
    if (!Number.isFinite(seconds) || seconds < 0) throw new RangeError('seconds must be a finite number >= 0');
    return this.serialised(() => this.current + Math.round(seconds * 1000));
  }

  /** Moves time forward to an ISO instant that is not in the past, running due work. */
  advanceTo(iso: string): Promise<number> {
    const target = parseIso(iso);
    if (target === undefined) throw new RangeError('not an ISO 8601 date-time');
    return this.serialised(() => {
      if (target < this.current) throw new RangeError('cannot move the clock into the past');
      return target;
    });
  }

  /** Sets the time outright (restoring a snapshot); pending timers are kept. */
  set(epochMs: number): void {
    this.current = epochMs;
  }

  /** How many timers wait to run. */
  pendingTimers(): number {
    return this.timers.length;
  }

  private serialised(target: () => number): Promise<number> {
    const run = this.advancing.then(async () => {
      const to = target();
      // Past it no timestamp keeps its format (DECISIONS.md); the control plane refuses such a move first.
      if (to > LATEST_TIME_MS) throw new RangeError(`the simulated clock stops at ${LATEST_TIME_ISO}`);
      // A failing timer must not strand the clock mid-way or skip later work: run everything
      // due, reach the target, then report the failures.
      const failures: unknown[] = [];
      for (let next = this.timers[0]; next && next.at <= to; next = this.timers[0]) {
        this.timers.shift();
        this.current = Math.max(this.current, next.at);
        try {
          await next.callback();
        } catch (error) {
          failures.push(error);
        }
      }
      this.current = to;
      if (failures.length === 1) throw failures[0];
      if (failures.length > 1) throw new AggregateError(failures, `${failures.length} timers failed`);
      return to;
    });
    this.advancing = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }
}
