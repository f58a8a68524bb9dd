import { describe, expect, it } from 'vitest';
import { DEFAULT_START_TIME, SimClock } from '../../src/sim/sim-clock.js';

const START = Date.parse(DEFAULT_START_TIME);

describe('SimClock', () => {
  it('starts at the default start time and stands still until advanced', async () => {
    const clock = new SimClock();
    expect(clock.now()).toBe(START);
    await Promise.resolve();
    expect(clock.now()).toBe(START);
    expect(await clock.advance(1.5)).toBe(START + 1500);
    expect(clock.now()).toBe(START + 1500);
  });

  it('runs due timers in (time, registration) order and leaves later ones waiting', async () => {
    const clock = new SimClock(0);
    const ran: string[] = [];
    clock.setTimer(3000, () => void ran.push('c@3'));
    clock.setTimer(1000, () => void ran.push('a@1'));
    clock.setTimer(2000, () => void ran.push('b1@2'));
    clock.setTimer(2000, () => void ran.push('b2@2'));
    clock.setTimer(1000, () => void ran.push('a2@1'));
    clock.setTimer(9000, () => void ran.push('late'));
    await clock.advance(5);
    expect(ran).toEqual(['a@1', 'a2@1', 'b1@2', 'b2@2', 'c@3']);
    expect(clock.pendingTimers()).toBe(1);
    await clock.advance(4);
    expect(ran.at(-1)).toBe('late');
    expect(clock.pendingTimers()).toBe(0);
  });

  it('runs a timer due exactly at the target', async () => {
    const clock = new SimClock(0);
    let ran = false;
    clock.setTimer(10_000, () => void (ran = true));
    await clock.advance(10);
    expect(ran).toBe(true);
  });

  it('sets now to each timer’s time while it runs, then to the target', async () => {
    const clock = new SimClock(0);
    const seen: number[] = [];
    for (const at of [500, 1500, 4000]) clock.setTimer(at, () => void seen.push(clock.now()));
    expect(await clock.advance(10)).toBe(10_000);
    expect(seen).toEqual([500, 1500, 4000]);
    expect(clock.now()).toBe(10_000);
  });

  it('awaits each timer before running the next one', async () => {
    const clock = new SimClock(0);
    const log: string[] = [];
    clock.setTimer(1000, async () => {
      log.push('first start');
      for (let i = 0; i < 5; i++) await Promise.resolve();
      log.push('first end');
    });
    clock.setTimer(2000, () => void log.push('second'));
    await clock.advance(3);
    expect(log).toEqual(['first start', 'first end', 'second']);
  });

  it('runs work scheduled by work if it falls due before the target, and not if after', async () => {
    const clock = new SimClock(0);
    const ran: Array<[string, number]> = [];
    clock.setTimer(1000, () => {
      ran.push(['parent', clock.now()]);
      clock.setTimer(clock.now() + 2000, () => {
        ran.push(['child', clock.now()]);
        clock.setTimer(clock.now() + 10_000, () => void ran.push(['grandchild', clock.now()]));
      });
    });
    await clock.advance(5);
    expect(ran).toEqual([
      ['parent', 1000],
      ['child', 3000],
    ]);
    expect(clock.pendingTimers()).toBe(1);
    await clock.advance(8);
    expect(ran.at(-1)).toEqual(['grandchild', 13_000]);
  });

  it('runs a timer set in the past on the next advance without moving time backwards', async () => {
    const clock = new SimClock(10_000);
    const seen: number[] = [];
    clock.setTimer(5000, () => void seen.push(clock.now()));
    await clock.advance(0);
    expect(seen).toEqual([10_000]);
  });

  it('does not run a cancelled timer, even when cancelled by an earlier timer of the same advance', async () => {
    const clock = new SimClock(0);
    const ran: string[] = [];
    const doomed = clock.setTimer(2000, () => void ran.push('doomed'));
    const alsoDoomed = clock.setTimer(3000, () => void ran.push('also doomed'));
    clock.setTimer(1000, () => {
      ran.push('canceller');
      alsoDoomed.cancel();
    });
    doomed.cancel();
    doomed.cancel();
    await clock.advance(5);
    expect(ran).toEqual(['canceller']);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('advances to an ISO instant and refuses the past and non-ISO text', async () => {
    const clock = new SimClock(START);
    expect(await clock.advanceTo('2026-01-02T00:00:00.000Z')).toBe(START + 86_400_000);
    await expect(clock.advanceTo('2026-01-01T12:00:00.000Z')).rejects.toThrow(RangeError);
    expect(clock.now()).toBe(START + 86_400_000);
    expect(() => clock.advanceTo('yesterday')).toThrow(RangeError);
    expect(() => clock.advanceTo('2026-01-03')).toThrow(RangeError);
    expect(await clock.advanceTo('2026-01-02T01:00:00+01:00')).toBe(START + 86_400_000);
  });

  it('refuses a negative or non-finite advance', () => {
    const clock = new SimClock(0);
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(() => clock.advance(Number.NaN)).toThrow(RangeError);
    expect(() => clock.advance(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(clock.now()).toBe(0);
  });

  it('serialises concurrent advances: the second starts where the first ended', async () => {
    const clock = new SimClock(0);
    const log: Array<[string, number]> = [];
    clock.setTimer(5000, async () => {
      log.push(['slow start', clock.now()]);
      for (let i = 0; i < 10; i++) await Promise.resolve();
      log.push(['slow end', clock.now()]);
    });
    clock.setTimer(15_000, () => void log.push(['second window', clock.now()]));
    const first = clock.advance(10);
    const second = clock.advance(10);
    expect(await first).toBe(10_000);
    expect(await second).toBe(20_000);
    expect(log).toEqual([
      ['slow start', 5000],
      ['slow end', 5000],
      ['second window', 15_000],
    ]);
  });

  it('checks advanceTo against the time left by an earlier queued advance', async () => {
    const clock = new SimClock(START);
    const forward = clock.advance(3600);
    const toHalfHour = clock.advanceTo('2026-01-01T00:30:00.000Z');
    expect(await forward).toBe(START + 3_600_000);
    await expect(toHalfHour).rejects.toThrow(/past/);
    // a refused advance does not block later ones
    expect(await clock.advance(1)).toBe(START + 3_601_000);
  });

  it('keeps pending timers when the time is set outright', async () => {
    const clock = new SimClock(0);
    let ran = 0;
    clock.setTimer(100_000, () => void ran++);
    clock.set(50_000);
    expect(clock.now()).toBe(50_000);
    await clock.advance(50);
    expect(ran).toBe(1);
  });
});

describe('sim clock with a failing timer', () => {
  it('still runs later due timers and reaches the target before reporting the failure', async () => {
    const clock = new SimClock(0);
    const ran: number[] = [];
    clock.setTimer(1_000, () => {
      throw new Error('boom');
    });
    clock.setTimer(2_000, () => void ran.push(clock.now()));
    await expect(clock.advance(5)).rejects.toThrow('boom');
    expect(ran).toEqual([2_000]);
    expect(clock.now()).toBe(5_000);
  });

  it('never passes 9999-12-31T23:59:59.999Z, the last instant the timestamp form can write', async () => {
    const clock = new SimClock(Date.parse('9999-12-31T23:59:59.000Z'));
    await expect(clock.advance(1)).rejects.toThrow(RangeError);
    await expect(clock.advanceTo('9999-12-31T23:59:59.999-01:00')).rejects.toThrow(RangeError);
    expect(await clock.advance(0.999)).toBe(Date.parse('9999-12-31T23:59:59.999Z'));
    expect(new Date(clock.now()).toISOString()).toBe('9999-12-31T23:59:59.999Z');
  });
});
