// The faults gate: whether any fault is set, as every API request asks it, answered from the
// process's memory after one store read, and forgotten by every write of the faults.
import { afterEach, describe, expect, it } from 'vitest';
import { FAULTS } from '../../../src/core/faults/fault.service.js';
import { FaultsGate } from '../../../src/runtime/faults/faults-gate.js';
import { MemoryStore } from '../../../src/providers/store/memory-store.js';
import { createRuntime, type Runtime } from '../../../src/index.js';
import { EVM_ADDRESS } from '../../core/wallet/wallet-world.js';
import { expectApiError } from '../../support/transports.js';

/** A read the test answers when it likes. */
function pendingRead(): { read: () => Promise<boolean>; answer: (read: number, armed: boolean) => void; count: () => number } {
  const waiting: Array<(armed: boolean) => void> = [];
  return {
    read: () => new Promise((resolve) => waiting.push(resolve)),
    answer: (read, armed) => waiting[read]!(armed),
    count: () => waiting.length,
  };
}

describe('FaultsGate', () => {
  it('reads once, then answers from memory until invalidated', async () => {
    let reads = 0;
    let armed = false;
    const gate = new FaultsGate(async () => (reads++, armed));
    expect(await gate.armed()).toBe(false);
    expect(gate.armed()).toBe(false);
    expect(gate.armed()).toBe(false);
    expect(reads).toBe(1);
    armed = true;
    gate.invalidate();
    expect(await gate.armed()).toBe(true);
    expect(gate.armed()).toBe(true);
    expect(reads).toBe(2);
  });

  it('shares a read under way between the requests that come meanwhile', async () => {
    const store = pendingRead();
    const gate = new FaultsGate(store.read);
    const first = gate.armed();
    const second = gate.armed();
    expect(store.count()).toBe(1);
    store.answer(0, true);
    expect([await first, await second]).toEqual([true, true]);
    expect(gate.armed()).toBe(true);
  });

  it('does not keep a read that began before an invalidation (it still answers its callers)', async () => {
    const store = pendingRead();
    const gate = new FaultsGate(store.read);
    const early = gate.armed();
    gate.invalidate(); // a write of the faults while the read is under way
    const late = gate.armed(); // a new read: the early one is not joined
    expect(store.count()).toBe(2);
    store.answer(0, false); // the early read, from before the write
    expect(await early).toBe(false);
    expect(store.count()).toBe(2);
    store.answer(1, true);
    expect(await late).toBe(true);
    expect(gate.armed()).toBe(true);
    expect(store.count()).toBe(2);
  });

  it('does not keep an early read that ends after the later one', async () => {
    const store = pendingRead();
    const gate = new FaultsGate(store.read);
    const early = gate.armed();
    gate.invalidate();
    const late = gate.armed();
    store.answer(1, true);
    expect(await late).toBe(true);
    store.answer(0, false);
    expect(await early).toBe(false);
    expect(gate.armed()).toBe(true);
    expect(store.count()).toBe(2);
  });

  it('keeps no failed read: the next request reads again', async () => {
    let reads = 0;
    const gate = new FaultsGate(async () => {
      reads++;
      if (reads === 1) throw new Error('the database is away');
      return false;
    });
    await expect(gate.armed()).rejects.toThrow('away');
    expect(await gate.armed()).toBe(false);
    expect(reads).toBe(2);
  });

  it('keeps an answer at most maxAgeMs when given one (a store other processes write)', async () => {
    let now = 1000;
    let reads = 0;
    const gate = new FaultsGate(
      async () => (reads++, false),
      500,
      () => now,
    );
    expect(await gate.armed()).toBe(false);
    now += 499;
    expect(gate.armed()).toBe(false);
    expect(reads).toBe(1);
    now += 1;
    expect(await gate.armed()).toBe(false);
    expect(reads).toBe(2);
  });
});

/** A memory store whose view counts the reads of the faults record. */
function countingStore(): { store: MemoryStore; reads: () => number } {
  const store = new MemoryStore();
  const view = store.view;
  let reads = 0;
  Object.defineProperty(store, 'view', {
    value: {
      ...view,
      get: (collection: string, id: string) => {
        if (collection === FAULTS) reads++;
        return view.get(collection, id);
      },
    },
  });
  return { store, reads: () => reads };
}

describe('the runtime asks the faults of the store once, not per request', () => {
  let runtime: Runtime;
  afterEach(() => runtime.close());

  async function world() {
    const counted = countingStore();
    runtime = await createRuntime({ seed: 3, store: counted.store, onInternalError: () => {} });
    const sim = runtime.simClient();
    const alice = await sim.createAgent({ name: 'alice', balances: { usd: '1000', usdc: '1000' } });
    await sim.createAgent({ name: 'bob' });
    const client = runtime.agent(alice.api_key);
    const send = () => client.wallet.send({ to: 'bob', amount: '1', asset: 'usd' });
    /** Reads of the faults record made while `work` runs. */
    const readsDuring = async (work: () => Promise<unknown>) => {
      const before = counted.reads();
      await work();
      return counted.reads() - before;
    };
    return { sim, client, send, readsDuring };
  }

  it('without faults: one read for the first request, none after', async () => {
    const { send, readsDuring } = await world();
    expect(await readsDuring(send)).toBeLessThanOrEqual(1);
    for (let i = 0; i < 5; i++) expect(await readsDuring(send)).toBe(0);
  });

  it('a fault armed through this process applies to the next request at once, and its end too', async () => {
    const { sim, send, readsDuring } = await world();
    await send();
    // Armed: the very next send carries its request (persistence.write needs it) and fails.
    const fault = await sim.addFault({ target: 'persistence.write', effect: 'fail', match: { route: 'wallet.send' } });
    await expectApiError(send(), 500, 'internal_error');
    await expectApiError(send(), 500, 'internal_error');
    // Removed: the next send goes through, and the one after reads nothing (the gate knows again).
    await sim.deleteFault(fault.fault_id);
    await send();
    expect(await readsDuring(send)).toBe(0);
    // Armed again and cleared.
    await sim.addFault({ target: 'persistence.write', effect: 'fail', match: { route: 'wallet.send' } });
    await expectApiError(send(), 500, 'internal_error');
    await sim.clearFaults();
    await send();
    expect(await readsDuring(send)).toBe(0);
  });

  it('a fault used up by its count ends at once (the hit recorded apart, and a hit counted inside a transaction)', async () => {
    const { sim, client, send, readsDuring } = await world();
    await send();
    // persistence.write: chosen in the request's transaction, recorded in one of its own.
    await sim.addFault({ target: 'persistence.write', effect: 'fail', count: 1 });
    await expectApiError(send(), 500, 'internal_error');
    await send();
    expect(await readsDuring(send)).toBe(0);
    // The wallet shorthand: chain.submit and bank.submit, used up together by the first hit, which
    // counts down inside the send's own transaction (strike).
    await sim.addWalletFailure({ next: true });
    // While a fault is set a request carries its context: its transactions ask the store for persistence.write faults.
    expect(await readsDuring(send)).toBeGreaterThan(0);
    const failed = await client.wallet.send({ to: EVM_ADDRESS, amount: '1', asset: 'usdc' });
    expect(failed.status).toBe('pending');
    expect((await sim.listFaults()).faults.filter((fault) => fault.active)).toEqual([]);
    await send();
    expect(await readsDuring(send)).toBe(0);
    // The shorthand's clear, of a rule that never hit.
    await sim.addWalletFailure({ recipient: EVM_ADDRESS });
    expect(await readsDuring(send)).toBeGreaterThan(0);
    await sim.clearWalletFailures();
    await send();
    expect(await readsDuring(send)).toBe(0);
  });

  it('a restore that brings faults back applies to the next request at once', async () => {
    const { sim, send } = await world();
    await sim.addFault({ target: 'persistence.write', effect: 'fail', match: { route: 'wallet.send' } });
    const armed = await runtime.sim.snapshot();
    await sim.clearFaults();
    await send();
    await send();
    await runtime.sim.restore(armed);
    await expectApiError(send(), 500, 'internal_error');
  });
});
