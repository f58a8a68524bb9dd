import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { GroupCommit } from '../../src/runtime/group-commit.js';

/** Lets every pending promise callback run (no time passes). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Write {
  index: number;
  done: boolean;
  ok: boolean;
  finish(ok: boolean): void;
}

/** A write function whose writes the test completes or fails by hand. */
function controlledWrites() {
  const writes: Write[] = [];
  let running = 0;
  let maxRunning = 0;
  const write = () =>
    new Promise<void>((resolve, reject) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      const entry: Write = {
        index: writes.length,
        done: false,
        ok: false,
        finish(ok) {
          if (entry.done) return;
          entry.done = true;
          entry.ok = ok;
          running--;
          if (ok) resolve();
          else reject(new Error(`write ${entry.index} failed`));
        },
      };
      writes.push(entry);
    });
  return {
    writes,
    write,
    maxRunning: () => maxRunning,
    current: () => writes.find((entry) => !entry.done),
  };
}

/** Tracks how a promise settled. */
function track(promise: Promise<void>) {
  const state = { settled: false, ok: false, error: undefined as unknown };
  promise.then(
    () => Object.assign(state, { settled: true, ok: true }),
    (error: unknown) => Object.assign(state, { settled: true, ok: false, error }),
  );
  return state;
}

describe('GroupCommit', () => {
  it('serves every request made during an in-flight write with one shared next write', async () => {
    const io = controlledWrites();
    const commit = new GroupCommit(io.write);
    const first = track(commit.request());
    await settle();
    expect(io.writes).toHaveLength(1);

    const during = [commit.request(), commit.request(), commit.request()];
    expect(during[1]).toBe(during[0]);
    expect(during[2]).toBe(during[0]);
    const waiting = during.map(track);
    await settle();
    expect(io.writes).toHaveLength(1);

    io.writes[0]!.finish(true);
    await settle();
    expect(first.ok).toBe(true);
    expect(waiting.some((state) => state.settled)).toBe(false);
    expect(io.writes).toHaveLength(2);

    io.writes[1]!.finish(true);
    await settle();
    expect(waiting.every((state) => state.ok)).toBe(true);
    expect(io.writes).toHaveLength(2);
    expect(io.maxRunning()).toBe(1);
  });

  it('coalesces requests made in the same turn into one write', async () => {
    const io = controlledWrites();
    const commit = new GroupCommit(io.write);
    const states = [commit.request(), commit.request()].map(track);
    await settle();
    io.current()!.finish(true);
    await settle();
    expect(io.writes).toHaveLength(1);
    expect(states.every((state) => state.ok)).toBe(true);
  });

  it('rejects the waiters of a failing write, and the next request still writes', async () => {
    const io = controlledWrites();
    const commit = new GroupCommit(io.write);
    const failing = track(commit.request());
    await settle();
    const queuedDuringFailure = track(commit.request());
    io.writes[0]!.finish(false);
    await settle();
    expect(failing.settled).toBe(true);
    expect(failing.ok).toBe(false);
    expect(String(failing.error)).toMatch(/write 0 failed/);

    // the request queued behind the failure gets its own write
    expect(io.writes).toHaveLength(2);
    expect(queuedDuringFailure.settled).toBe(false);
    io.writes[1]!.finish(true);
    await settle();
    expect(queuedDuringFailure.ok).toBe(true);

    const later = track(commit.request());
    await settle();
    expect(io.writes).toHaveLength(3);
    io.writes[2]!.finish(true);
    await settle();
    expect(later.ok).toBe(true);
  });

  it('drains: waits until every requested write is done', async () => {
    const io = controlledWrites();
    const commit = new GroupCommit(io.write);
    void commit.request();
    await settle();
    void commit.request();
    const drained = track(commit.drain());
    io.writes[0]!.finish(true);
    await settle();
    expect(drained.settled).toBe(false);
    io.writes[1]!.finish(true);
    await settle();
    expect(drained.ok).toBe(true);
  });

  it('resolves each request only after a write that began after it, one write at a time', async () => {
    type Action = 'request' | 'succeed' | 'fail' | 'tick';
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom<Action>('request', 'request', 'succeed', 'fail', 'tick'), { maxLength: 40 }), async (actions) => {
        const io = controlledWrites();
        const commit = new GroupCommit(io.write);
        const requests: Array<{ writesBefore: number; state: ReturnType<typeof track>; checked: boolean }> = [];
        const check = () => {
          for (const request of requests) {
            if (!request.state.settled || request.checked) continue;
            request.checked = true;
            const later = io.writes.slice(request.writesBefore).filter((write) => write.done);
            // settled by a write that started after the request, with that write's outcome
            expect(later.some((write) => write.ok === request.state.ok)).toBe(true);
          }
        };
        for (const action of actions) {
          if (action === 'request') requests.push({ writesBefore: io.writes.length, state: track(commit.request()), checked: false });
          else if (action !== 'tick') io.current()?.finish(action === 'succeed');
          await settle();
          check();
        }
        for (let guard = 0; io.current() && guard < 100; guard++) {
          io.current()!.finish(true);
          await settle();
          check();
        }
        expect(requests.every((request) => request.state.settled)).toBe(true);
        expect(io.maxRunning()).toBeLessThanOrEqual(1);
        expect(io.writes.length).toBeLessThanOrEqual(requests.length);
      }),
      { numRuns: 150 },
    );
  });
});
