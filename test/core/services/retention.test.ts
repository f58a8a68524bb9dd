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

  it('sweeps expired keys from the expiry index alone, never reading a stored response', async () => {
    // Every page read of the store, by collection, through the view and every transaction handle.
    const pages: string[] = [];
    const store = new MemoryStore();
    const watch = <V extends StoreView>(view: V): V =>
      new Proxy(view, {
        get: (target, name, receiver) =>
          name === 'page' ? (collection: string, query: Parameters<StoreView['page']>[1]) => (pages.push(collection), target.page(collection, query)) : Reflect.get(target, name, receiver),
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
    await runtime.sim.advance({ seconds: 86_400 });
    for (let i = 0; i < 2; i++) expect((await keyedCreate(runtime, `b${i}`, `fresh${i}`)).status).toBe(201);
    expect(await collectionSize(runtime, 'idempotency')).toBe(2);
    expect(pages).toContain('idempotency_expiry');
    expect(pages).not.toContain('idempotency');
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
