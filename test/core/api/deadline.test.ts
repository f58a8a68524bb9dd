// A call's outside work has a real-time deadline (`requestTimeoutMs`): the call's signal aborts
// at it, and a call cut off by it answers a DECISIONS.md error instead of hanging.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Dispatcher } from '../../../src/core/api/dispatcher.js';
import { bindRoute, defineRoute, type CallContext } from '../../../src/core/api/route.js';
import { IdempotencyKeys } from '../../../src/core/services/idempotency.js';
import { createRuntime, type Runtime } from '../../../src/index.js';
import { MemoryStore } from '../../../src/providers/store/memory-store.js';
import { requestDeadlines } from '../../../src/runtime/request-deadlines.js';
import { SimClock } from '../../../src/sim/sim-clock.js';
import { WasmSandbox } from '../../../src/providers/sandbox/wasm-sandbox.js';
import { orIfLate, whileCollecting } from '../../support/gc.js';

const slow = defineRoute({ id: 'test.slow', method: 'GET', path: '/slow', auth: 'public', tag: 'test', summary: 'waits for its signal', response: z.object({ ok: z.boolean() }), status: 200 });

/** A dispatcher with one route whose handler waits until its call's signal aborts, then fails as an outside call would. */
function dispatcherWith(timeoutMs: number | undefined, seen: CallContext[]): Dispatcher {
  const handler = bindRoute(slow, async (context) => {
    seen.push(context);
    await new Promise<void>((_resolve, reject) => context.signal.addEventListener('abort', () => reject(new Error('aborted by the signal')), { once: true }));
    return { ok: true };
  });
  const errors: unknown[] = [];
  return new Dispatcher({
    routes: [handler],
    callers: { agentFor: async () => undefined, adminAllowed: () => 'allowed' },
    idempotency: new IdempotencyKeys(new MemoryStore(), new SimClock(0)),
    onInternalError: (error) => errors.push(error),
    deadlines: requestDeadlines(timeoutMs),
  });
}

describe('the deadline of a call', () => {
  it('aborts the signal at the deadline and answers 504 upstream_timeout saying why', async () => {
    const seen: CallContext[] = [];
    const result = await dispatcherWith(50, seen).dispatch({ routeId: 'test.slow' });
    expect(result.status).toBe(504);
    expect(result.body).toEqual({ error: { code: 'upstream_timeout', message: "the request's outside calls did not finish within its deadline of 50 ms" } });
    expect(seen[0]!.signal.aborted).toBe(true);
    expect(typeof seen[0]!.deadline).toBe('number');
  });

  it('aborts at the deadline while garbage collections run (AbortSignal.timeout inside AbortSignal.any is lost to them)', async () => {
    const calls = Array.from({ length: 20 }, () => dispatcherWith(20, []).dispatch({ routeId: 'test.slow' }));
    const outcomes = await whileCollecting(() =>
      Promise.all(
        calls.map((call) =>
          orIfLate(
            call.then((result) => result.status),
            'still waiting',
          ),
        ),
      ),
    );
    expect(outcomes).toEqual(Array.from({ length: 20 }, () => 504));
  });

  it('sets no deadline unless one is configured', () => {
    const seen: CallContext[] = [];
    void dispatcherWith(undefined, seen).dispatch({ routeId: 'test.slow' });
    expect(seen[0]!.deadline).toBeUndefined();
    expect(seen[0]!.signal.aborted).toBe(false);
  });

  it('refuses a deadline that is not a positive whole number of milliseconds', () => {
    expect(() => requestDeadlines(0)).toThrow(RangeError);
    expect(() => requestDeadlines(1.5)).toThrow(RangeError);
  });
});

// An SMS or call cut by the deadline while its carrier is asked: test/http/carrier-deadline.test.ts.

describe('a compute run cut by the deadline', () => {
  let runtime: Runtime | undefined;
  let sandbox: WasmSandbox | undefined;
  afterEach(async () => {
    await runtime?.close();
    await sandbox?.close();
  });

  it('answers 504 upstream_timeout and keeps nothing: no file, no event, no stored key', async () => {
    sandbox = new WasmSandbox({ size: 1 });
    // The interpreter is loaded before the deadline matters (a worker's first run loads it).
    const warm = await sandbox.run({ runtime: 'bash', code: 'true', timeoutSeconds: 60, entries: [], quotaBytes: 1024, memoryLimitBytes: 256 * 1024 ** 2, outputLimitBytes: 1024, nowMs: 0, seed: new Uint8Array(32) });
    expect(warm.exitCode).toBe(0);
    runtime = await createRuntime({ providers: { sandbox }, requestTimeoutMs: 1_000 });
    const ann = await runtime.createAgent({ name: 'ann' });
    const cutRun = () => runtime!.dispatch({ routeId: 'compute.run', bearer: ann.api_key, idempotencyKey: 'cut-1', body: { runtime: 'bash', code: 'echo kept > /cut.txt; while true; do :; done', timeout_seconds: 60 } });
    const cut = await cutRun();
    expect(cut.status).toBe(504);
    expect(cut.body).toEqual({ error: { code: 'upstream_timeout', message: "the request's outside calls did not finish within its deadline of 1000 ms" } });
    const file = await runtime.dispatch({ routeId: 'compute.readFs', bearer: ann.api_key, query: { path: '/cut.txt' } });
    expect(file.status).toBe(404);
    const events = await runtime.dispatch({ routeId: 'sim.listEvents', query: { after: '0', limit: '100' } });
    expect((events.body as { events: Array<{ type: string }> }).events.map((event) => event.type)).not.toContain('compute.run.completed');
    // Nothing was stored under the key: the same request runs again instead of replaying the 504.
    const again = await cutRun();
    expect(again.status).toBe(504);
    expect(again.headers['Idempotent-Replayed']).toBeUndefined();
  }, 60_000);
});
