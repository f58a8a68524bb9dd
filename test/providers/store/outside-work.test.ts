// Outside calls (webhook POSTs, carrier sends) never hold a durable unit: they run once the unit's
// writes are durable, so other writes never wait on the network and no rollback follows them.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoreTransaction } from '../../../src/core/ports/store.js';
import type { CarrierCall, CarrierSms, Telephony } from '../../../src/core/ports/telephony.js';
import { createRuntime, type Runtime } from '../../../src/index.js';
import { SqliteStore } from '../../../src/providers/store/sqlite-store.js';
import { STORE_KINDS } from './store-kinds.js';

let dir: string;
const cleanups: Array<() => Promise<void>> = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'outside-work-'));
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

async function durableRuntime(options: Parameters<typeof createRuntime>[0] = {}): Promise<Runtime> {
  const runtime = await createRuntime({ ...options, store: SqliteStore.open(path.join(dir, 'world.db')) });
  cleanups.push(() => runtime.close());
  return runtime;
}

describe.each(STORE_KINDS)('$name: outside work of a unit', (kind) => {
  afterEach(() => kind.cleanup());

  it('runs at once outside a unit, and inside one only once the unit is durable, the unit waiting for it', async () => {
    const store = await kind.create();
    const order: string[] = [];
    expect(await store.outside(async () => 'now')).toBe('now');
    const result = await store.unit(
      async () => {
        await store.transaction(async (tx) => {
          await tx.insert('notes', 'a', { text: 'a' });
          tx.afterCommit(() => order.push('durable'));
        });
        const deferred = store.outside(async () => {
          order.push(`outside sees ${(await store.view.get('notes', 'a')) ? 'a' : 'nothing'}`);
          // A plain write here is not held back by the unit: the unit is over.
          await store.transaction((tx) => tx.insert('notes', 'b', { text: 'b' }));
          order.push('outside done');
        });
        order.push(`deferred: ${deferred === undefined}`);
        return 'unit';
      },
      (tx) => tx.insert('keys', 'k', {}),
    );
    order.push('unit resolved');
    expect(result).toBe('unit');
    expect(order).toEqual(['deferred: true', 'durable', 'outside sees a', 'outside done', 'unit resolved']);
    expect(await store.view.count('notes')).toBe(2);
  });
});

describe('SqliteStore: a failed commit', () => {
  it('skips the outside work of the units in the failed group', async () => {
    const file = path.join(dir, 'full.db');
    const first = SqliteStore.open(file);
    await first.transaction((tx) => tx.insert('notes', 'seed', { text: 'x' }));
    const pages = first.sizes().pageBytes / 4096;
    await first.close();
    const store = SqliteStore.open(file, { maxPages: pages + 2 });
    cleanups.push(() => store.close());
    let called = false;
    const unit = store.unit(async () => {
      await store.transaction((tx) => tx.insert('notes', 'big', { text: 'y'.repeat(200_000) }));
      store.outside(async () => void (called = true));
    });
    await expect(unit).rejects.toThrow();
    expect(called).toBe(false);
    expect(await store.view.get('notes', 'big')).toBeUndefined();
  });
});

/** A carrier whose every send waits until `proceed` says so (called with the send). */
function blockingCarrier(proceed: (what: string) => Promise<void>): Telephony {
  let next = 0;
  return {
    planSms: async (_tx: StoreTransaction, _sms: CarrierSms) => null,
    planCall: async (_tx: StoreTransaction, _call: CarrierCall) => null,
    dispatchSms: async (sms) => {
      await proceed(sms.body);
      return { carrier_id: `SM${++next}` };
    },
    dispatchCall: async () => ({ carrier_id: `CA${++next}` }),
  };
}

describe('a keyed live SMS on SQLite', () => {
  it('calls the carrier outside any unit, before the send is stored: a write made while the carrier answers commits first', async () => {
    let runtime!: Runtime;
    const seen: string[] = [];
    // Another request's write, started from the test's own context (not the send's) when the
    // carrier is called. The carrier answers only once it has committed: were a unit of the send
    // open, that write would wait for this answer and neither would ever finish. The send itself
    // is stored only once the carrier has answered, so a deadline that cuts the carrier call
    // keeps nothing (docs/http.md).
    let called!: () => void;
    const other = new Promise<void>((resolve) => (called = resolve)).then(() => runtime.dispatch({ routeId: 'sim.createAgent', bearer: null, body: { name: 'other' } }));
    const carrier = blockingCarrier(async (body) => {
      called();
      seen.push(`${body}: other ${(await other).status}, send stored ${(await runtime.sim.snapshot()).store.collections.phone_sms?.rows.length ?? 0}`);
    });
    runtime = await durableRuntime({ providers: { telephony: carrier } });
    const ann = await runtime.createAgent({ name: 'ann' });
    const send = () => runtime.dispatch({ routeId: 'phone.sendSms', bearer: ann.api_key, idempotencyKey: 'sms-1', body: { to: '+14155552671', body: 'one' } });
    const first = await send();
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ status: 'queued' });
    expect(seen).toEqual(['one: other 201, send stored 0']);
    // The retry replays what the unit committed and never calls the carrier again.
    const again = await send();
    expect(again.headers['Idempotent-Replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(seen).toHaveLength(1);
  });
});

describe('a webhook retry on SQLite', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  it("POSTs after the retry job's claim is durable: a write made while the receiver answers commits first", async () => {
    let runtime!: Runtime;
    const attempts: string[] = [];
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        const attempt = String(request.headers['agent-delivery-attempt']);
        if (attempt === '1') {
          attempts.push('1: 500');
          response.statusCode = 500;
          response.end();
          return;
        }
        // Answers only once another write committed: a retry holding its job's unit would deadlock here.
        void runtime.dispatch({ routeId: 'sim.createAgent', bearer: null, body: { name: `late-${attempt}` } }).then((other) => {
          attempts.push(`${attempt}: other ${other.status}`);
          response.statusCode = 200;
          response.end();
        });
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    runtime = await durableRuntime();
    const ann = await runtime.createAgent({ name: 'ann' });
    expect((await runtime.dispatch({ routeId: 'webhooks.create', bearer: ann.api_key, body: { url } })).status).toBe(201);
    await runtime.dispatch({ routeId: 'sim.fundWallet', bearer: null, body: { handle: 'ann', asset: 'usd', amount: '1' } });
    while (attempts.length < 1 || ((await runtime.sim.snapshot()).store.collections.webhook_deliveries?.rows[0]?.[3] as { last_response_status: number | null } | undefined)?.last_response_status !== 500) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    await runtime.sim.advance({ seconds: 60 });
    expect(attempts).toEqual(['1: 500', '2: other 201']);
    const delivery = (await runtime.sim.snapshot()).store.collections.webhook_deliveries!.rows[0]![3];
    expect(delivery).toMatchObject({ attempts: 2, status: 'delivered', last_response_status: 200 });
  });
});
