// A call's outside work has a real-time deadline (`requestTimeoutMs`): the call's signal aborts
// at it, and a call cut off by it answers a DECISIONS.md error instead of hanging.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Dispatcher } from '../../../src/core/api/dispatcher.js';
import { bindRoute, defineRoute, type CallContext } from '../../../src/core/api/route.js';
import { IdempotencyKeys } from '../../../src/core/services/idempotency.js';
import { createRuntime, type Runtime } from '../../../src/index.js';
import { FetchHttpClient } from '../../../src/providers/http/fetch-http-client.js';
import { MemoryStore } from '../../../src/providers/store/memory-store.js';
import { TwilioTelephony } from '../../../src/providers/telephony/twilio-telephony.js';
import { requestDeadlines } from '../../../src/runtime/request-deadlines.js';
import { SimClock } from '../../../src/sim/sim-clock.js';
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
  return new Dispatcher(
    [handler],
    { agentFor: async () => undefined, adminAllowed: () => 'allowed' },
    new IdempotencyKeys(new MemoryStore(), new SimClock(0)),
    (error) => errors.push(error),
    new AbortController().signal,
    requestDeadlines(timeoutMs),
  );
}

describe('the deadline of a call', () => {
  it('aborts the signal at the deadline and answers 500 internal_error saying why', async () => {
    const seen: CallContext[] = [];
    const result = await dispatcherWith(50, seen).dispatch({ routeId: 'test.slow' });
    expect(result.status).toBe(500);
    expect(result.body).toEqual({ error: { code: 'internal_error', message: "the request's outside calls did not finish within its deadline of 50 ms" } });
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
    expect(outcomes).toEqual(Array.from({ length: 20 }, () => 500));
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

describe('a carrier that never answers', () => {
  let server: Server | undefined;
  let runtime: Runtime | undefined;
  afterEach(async () => {
    await runtime?.close();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it('is cut off at the request deadline: the send answers, its message failed 30008', async () => {
    server = createServer(() => {
      // Never answers.
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const apiBaseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const telephony = new TwilioTelephony({ accountSid: 'AC1', authToken: 't', callbackBaseUrl: 'https://example.test', httpClient: new FetchHttpClient(), apiBaseUrl, timeoutMs: 3_600_000 });
    runtime = await createRuntime({ providers: { telephony }, requestTimeoutMs: 100 });
    const ann = await runtime.createAgent({ name: 'ann' });
    const sent = await runtime.dispatch({ routeId: 'phone.sendSms', bearer: ann.api_key, body: { to: '+14155552671', body: 'hi' } });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ status: 'failed', error_code: '30008' });
  });
});
