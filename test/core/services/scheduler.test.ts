import { describe, expect, it } from 'vitest';
import { Scheduler, type Job } from '../../../src/core/services/scheduler.js';
import { MemoryStore } from '../../../src/providers/store/memory-store.js';
import { SimClock } from '../../../src/sim/sim-clock.js';
import { SeededRandom } from '../../../src/sim/seeded-random.js';

function world(startMs = 0) {
  const store = new MemoryStore();
  const clock = new SimClock(startMs);
  const scheduler = new Scheduler(store, clock, new SeededRandom(7));
  const ran: Array<{ job: Job; at: number }> = [];
  scheduler.handle('ping', (job) => void ran.push({ job, at: clock.now() }));
  return { store, clock, scheduler, ran };
}

describe('Scheduler', () => {
  it('arms a job only once its transaction commits, and runs it at its time', async () => {
    const { store, clock, scheduler, ran } = world();
    let pendingInside = -1;
    const id = await store.transaction(async (tx) => {
      const jobId = await scheduler.schedule(tx, 5000, 'ping', { n: 1 });
      pendingInside = clock.pendingTimers();
      return jobId;
    });
    expect(pendingInside).toBe(0);
    expect(clock.pendingTimers()).toBe(1);
    expect(id).toMatch(/^job_/);
    expect(await scheduler.pending()).toBe(1);

    await clock.advance(4.999);
    expect(ran).toEqual([]);
    await clock.advance(0.001);
    expect(ran).toEqual([{ job: { id, type: 'ping', at_ms: 5000, data: { n: 1 } }, at: 5000 }]);
    expect(await scheduler.pending()).toBe(0);
  });

  it('neither stores nor arms a job whose transaction rolls back', async () => {
    const { store, clock, scheduler, ran } = world();
    await expect(
      store.transaction(async (tx) => {
        await scheduler.schedule(tx, 1000, 'ping', {});
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(clock.pendingTimers()).toBe(0);
    expect(await scheduler.pending()).toBe(0);
    await clock.advance(10);
    expect(ran).toEqual([]);
  });

  it('runs jobs in (time, scheduling) order', async () => {
    const { store, clock, scheduler, ran } = world();
    await store.transaction(async (tx) => {
      await scheduler.schedule(tx, 3000, 'ping', { n: 'c' });
      await scheduler.schedule(tx, 1000, 'ping', { n: 'a' });
    });
    await store.transaction((tx) => scheduler.schedule(tx, 1000, 'ping', { n: 'b' }));
    await clock.advance(5);
    expect(ran.map((entry) => entry.job.data.n)).toEqual(['a', 'b', 'c']);
  });

  it('cancels a scheduled job so it never runs; cancelling again answers false', async () => {
    const { store, clock, scheduler, ran } = world();
    const id = await store.transaction((tx) => scheduler.schedule(tx, 1000, 'ping', {}));
    expect(await store.transaction((tx) => scheduler.cancel(tx, id))).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
    expect(await store.transaction((tx) => scheduler.cancel(tx, id))).toBe(false);
    expect(await store.transaction((tx) => scheduler.cancel(tx, 'job_unknown'))).toBe(false);
    await clock.advance(5);
    expect(ran).toEqual([]);
  });

  it('keeps a job whose cancellation rolled back', async () => {
    const { store, clock, scheduler, ran } = world();
    const id = await store.transaction((tx) => scheduler.schedule(tx, 1000, 'ping', {}));
    await expect(
      store.transaction(async (tx) => {
        await scheduler.cancel(tx, id);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow();
    await clock.advance(5);
    expect(ran.map((entry) => entry.job.id)).toEqual([id]);
  });

  it('lets a job schedule follow-up work that runs within the same advance', async () => {
    const { store, clock, scheduler } = world();
    const chain: number[] = [];
    scheduler.handle('step', async (job) => {
      chain.push(clock.now());
      const n = job.data.n as number;
      if (n < 3) await store.transaction((tx) => scheduler.schedule(tx, clock.now() + 1000, 'step', { n: n + 1 }));
    });
    await store.transaction((tx) => scheduler.schedule(tx, 1000, 'step', { n: 1 }));
    await clock.advance(10);
    expect(chain).toEqual([1000, 2000, 3000]);
  });

  it('refuses a job type without a handler and a second handler for a type', async () => {
    const { store, scheduler } = world();
    await expect(store.transaction((tx) => scheduler.schedule(tx, 1, 'nobody', {}))).rejects.toThrow(/no handler/);
    expect(() => scheduler.handle('ping', () => {})).toThrow(/already/);
  });

  it('re-arms stored jobs after a store import and drops timers of jobs that are gone', async () => {
    const { store, clock, scheduler, ran } = world();
    const empty = await store.export();
    await store.transaction((tx) => scheduler.schedule(tx, 1000, 'ping', { n: 'old' }));
    const withJob = await store.export();

    await store.import(empty);
    await scheduler.rearmAll();
    expect(clock.pendingTimers()).toBe(0);
    await clock.advance(2);
    expect(ran).toEqual([]);

    await store.import(withJob);
    await scheduler.rearmAll();
    await scheduler.rearmAll();
    expect(clock.pendingTimers()).toBe(1);
    await clock.advance(1);
    expect(ran.map((entry) => entry.job.data.n)).toEqual(['old']);
    // overdue by then: it runs first thing in the next advance, without moving time backwards
    expect(ran[0]!.at).toBe(2000);
  });

  it('survives export and import into another store, clock and scheduler', async () => {
    const first = world();
    const ids = await first.store.transaction(async (tx) => [await first.scheduler.schedule(tx, 2000, 'ping', { n: 2 }), await first.scheduler.schedule(tx, 1000, 'ping', { n: 1 })]);
    const snapshot = JSON.parse(JSON.stringify(await first.store.export()));

    const second = world();
    await second.store.import(snapshot);
    await second.scheduler.rearmAll();
    expect(await second.scheduler.pending()).toBe(2);
    await second.clock.advance(3);
    expect(second.ran.map((entry) => [entry.job.id, entry.job.data.n, entry.at])).toEqual([
      [ids[1], 1, 1000],
      [ids[0], 2, 2000],
    ]);
    expect(await second.scheduler.pending()).toBe(0);
    expect(first.ran).toEqual([]);
  });
});
