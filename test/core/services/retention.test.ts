// What the store keeps: idempotency records for a day of service time, jobs until they ran,
// events forever unless a retention is set.
import { describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../../src/index.js';
import type { Store, StoreTransaction, StoreView } from '../../../src/core/ports/store.js';
import { MemoryStore } from '../../../src/providers/store/memory-store.js';

function keyedCreate(runtime: Runtime, name: string, key: string) {
  return runtime.dispatch({ routeId: 'sim.createAgent', body: { name }, bearer: null, idempotencyKey: key });
}

async function collectionSize(runtime: Runtime, name: string): Promise<number> {
  return (await runtime.sim.snapshot()).store.collections[name]?.rows.length ?? 0;
}

describe('retention', () => {
  it('deletes idempotency records once their 24 hours of service time have passed, as new keys arrive', async () => {
    const runtime = await createRuntime();
    for (let i = 0; i < 5; i++) expect((await keyedCreate(runtime, `a${i}`, `k${i}`)).status).toBe(201);
    expect(await collectionSize(runtime, 'idempotency')).toBe(5);
    await runtime.sim.advance({ seconds: 86_400 });
    // Each new record removes up to two expired ones.
    for (let i = 0; i < 3; i++) expect((await keyedCreate(runtime, `b${i}`, `fresh${i}`)).status).toBe(201);
    expect(await collectionSize(runtime, 'idempotency')).toBe(3);
    // An expired key is a new request: it runs again (and the name is taken now).
    expect((await keyedCreate(runtime, 'a0', 'k0')).status).toBe(409);
  });

  it("sweeps only once a record can have expired: writes within the oldest record's day read no page, and no expiry index is written", async () => {
    // Every page of idempotency records read, through the view and every transaction handle.
    let pages = 0;
    const store = new MemoryStore();
    const watch = <V extends StoreView>(view: V): V =>
      new Proxy(view, {
        get: (target, name, receiver) =>
          name === 'page'
            ? (collection: string, query: Parameters<StoreView['page']>[1]) => {
                if (collection === 'idempotency') pages++;
                return target.page(collection, query);
              }
            : Reflect.get(target, name, receiver),
      });
    const watched: Store = new Proxy(store, {
      get: (target, name) => {
        if (name === 'view') return watch(target.view);
        if (name === 'transaction') return <T>(fn: (tx: StoreTransaction) => Promise<T>) => target.transaction((tx) => fn(watch(tx)));
        if (name === 'unit') return <T>(work: () => Promise<T>, last?: (tx: StoreTransaction, result: T) => Promise<void>) => target.unit(work, last && ((tx, result) => last(watch(tx), result)));
        const value = Reflect.get(target, name, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const runtime = await createRuntime({ store: watched });
    for (let i = 0; i < 4; i++) expect((await keyedCreate(runtime, `a${i}`, `k${i}`)).status).toBe(201);
    // The first write found its own record the oldest, a day from expiring: the next three did not look.
    expect(pages).toBe(1);
    await runtime.sim.advance({ seconds: 86_399 });
    expect((await keyedCreate(runtime, 'c0', 'still-quiet')).status).toBe(201);
    expect(pages).toBe(1);
    await runtime.sim.advance({ seconds: 1 });
    // The next two writes each remove two expired records; the third finds the oldest left within its day and goes quiet again.
    for (let i = 0; i < 3; i++) expect((await keyedCreate(runtime, `b${i}`, `fresh${i}`)).status).toBe(201);
    expect(pages).toBe(4);
    expect((await keyedCreate(runtime, 'b3', 'fresh3')).status).toBe(201);
    expect(pages).toBe(4);
    expect(await collectionSize(runtime, 'idempotency')).toBe(5);
    expect(await collectionSize(runtime, 'idempotency_expiry')).toBe(0);
  });

  it('sweeps a restored world as a fresh runtime would, whatever the world before the restore learnt', async () => {
    const runtime = await createRuntime();
    await keyedCreate(runtime, 'first', 'k0');
    const atStart = await runtime.sim.snapshot();
    await runtime.sim.advance({ seconds: 2 * 86_400 });
    // Sweeps k0 and learns that nothing expires for a day from now.
    await keyedCreate(runtime, 'second', 'k1');
    await runtime.sim.restore(atStart);
    await runtime.sim.advance({ seconds: 86_400 });
    await keyedCreate(runtime, 'third', 'k2');
    const fresh = await createRuntime();
    await fresh.sim.restore(atStart);
    await fresh.sim.advance({ seconds: 86_400 });
    await keyedCreate(fresh, 'third', 'k2');
    expect(await collectionSize(runtime, 'idempotency')).toBe(1);
    expect((await runtime.sim.snapshot()).store).toEqual((await fresh.sim.snapshot()).store);
  });

  it('removes the expiry index rows an earlier version wrote, as new records arrive', async () => {
    const runtime = await createRuntime();
    await keyedCreate(runtime, 'old', 'old-key');
    const snapshot = await runtime.sim.snapshot();
    const rows = Array.from({ length: 20 }, (_, i) => [`scope:key-${i}`, '', i + 1, { id: `scope:key-${i}`, created_ms: 0 }] as [string, string, number, unknown]);
    snapshot.store.collections.idempotency_expiry = { nextPosition: rows.length + 1, rows };
    const twin = await createRuntime();
    await twin.sim.restore(snapshot);
    expect(await collectionSize(twin, 'idempotency_expiry')).toBe(20);
    // Sixteen a write, and the replay of a kept key still answers from its record.
    expect((await keyedCreate(twin, 'new', 'new-key')).status).toBe(201);
    expect(await collectionSize(twin, 'idempotency_expiry')).toBe(4);
    expect((await keyedCreate(twin, 'newer', 'newer-key')).status).toBe(201);
    expect(await collectionSize(twin, 'idempotency_expiry')).toBe(0);
    expect((await keyedCreate(twin, 'old', 'old-key')).headers['Idempotent-Replayed']).toBe('true');
  });

  it('keeps a record that is still within its day', async () => {
    const runtime = await createRuntime();
    await keyedCreate(runtime, 'old', 'old-key');
    await runtime.sim.advance({ seconds: 86_399 });
    await keyedCreate(runtime, 'new', 'new-key');
    expect(await collectionSize(runtime, 'idempotency')).toBe(2);
    expect((await keyedCreate(runtime, 'old', 'old-key')).headers['Idempotent-Replayed']).toBe('true');
  });

  it('deletes a job once it ran', async () => {
    const runtime = await createRuntime();
    const ann = await runtime.createAgent({ name: 'ann' });
    await runtime.dispatch({ routeId: 'sim.fundWallet', bearer: null, body: { handle: 'ann', asset: 'usdc', amount: '10' } });
    const sent = await runtime.dispatch({ routeId: 'wallet.send', bearer: ann.api_key, body: { to: '0x52908400098527886E0F7030069857D2E4169EE7', amount: '1', asset: 'usdc', network: 'base' } });
    expect(sent.status).toBe(201);
    expect(await collectionSize(runtime, 'jobs')).toBe(1);
    await runtime.sim.advance({ seconds: 60 });
    expect(await collectionSize(runtime, 'jobs')).toBe(0);
  });

  it('keeps every event by default', async () => {
    const runtime = await createRuntime();
    await runtime.createAgent({ name: 'ann' });
    await runtime.sim.advance({ seconds: 10 * 86_400 });
    await runtime.createAgent({ name: 'ben' });
    expect((await runtime.sim.events(0, 100)).events[0]!.seq).toBe(1);
  });

  it('removes events older than eventRetention as new ones arrive, keeping sequence numbers', async () => {
    const runtime = await createRuntime({ eventRetention: '1d' });
    await runtime.createAgent({ name: 'ann' });
    const early = (await runtime.sim.events(0, 100)).events;
    expect(early.length).toBeGreaterThan(0);
    await runtime.sim.advance({ seconds: 86_401 });
    await runtime.createAgent({ name: 'ben' });
    await runtime.createAgent({ name: 'cat' });
    const events = (await runtime.sim.events(0, 100)).events;
    expect(events.every((event) => event.seq > early[early.length - 1]!.seq)).toBe(true);
    // Numbering continues without reuse or gaps among the kept events.
    expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => events[0]!.seq + i));
    expect((await runtime.sim.events(events[0]!.seq, 100)).events.map((event) => event.seq)).toEqual(events.slice(1).map((event) => event.seq));
  });

  it('refuses an eventRetention that is not a duration', async () => {
    await expect(createRuntime({ eventRetention: 'soon' })).rejects.toThrow(/expected a duration such as 30d/);
  });
});
