/**
 * The locking contract the per-day limits rely on, checked on the store calls themselves (so a
 * database store that runs transactions concurrently gets it too): a send reads the agent's policy
 * record after the wallet locks (every writer of the day's sends holds the sender's wallet lock,
 * the setting of a policy included), and writes it only under a policy; messages and runs lock the
 * record before they read it; a refused action writes nothing.
 */
import { describe, expect, it } from 'vitest';
import { closeAfter } from '../../support/close-after.js';
import { createRuntime, MemoryStore, type Runtime } from '../../../src/index.js';
import type { Store, StoreTransaction } from '../../../src/core/ports/store.js';

/** A memory store that records, per transaction, the lock, read and write calls on wallets and policies. */
function recordingStore(): { store: Store; transactions: string[][] } {
  const inner = new MemoryStore();
  const transactions: string[][] = [];
  const watched = new Set(['wallets', 'policies']);
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      if (property !== 'transaction') return Reflect.get(target, property, receiver);
      return <T>(fn: (tx: StoreTransaction) => Promise<T>) =>
        target.transaction((tx) => {
          const calls: string[] = [];
          transactions.push(calls);
          const wrapped = new Proxy(tx, {
            get(txTarget, name, txReceiver) {
              const member = Reflect.get(txTarget, name, txReceiver);
              if (typeof member !== 'function' || !['lock', 'get', 'update', 'insert'].includes(String(name))) return member;
              return (collection: string, ...rest: unknown[]) => {
                if (watched.has(collection)) calls.push(`${String(name)} ${collection}`);
                return member.call(txTarget, collection, ...rest);
              };
            },
          });
          return fn(wrapped);
        });
    },
  }) as Store;
  return { store, transactions };
}

const keep = closeAfter<Runtime>();

describe('policy locks', () => {
  it('a send reads the policy record after the wallet locks and counts under a policy only; a refusal leaves both untouched', async () => {
    const { store, transactions } = recordingStore();
    const runtime = keep(await createRuntime({ store }));
    const sim = runtime.simClient();
    const alice = await sim.createAgent({ name: 'alice', balances: { usd: '100' } });
    await sim.createAgent({ name: 'bob' });
    const client = runtime.agent(alice.api_key);

    // No policy: read, nothing written.
    transactions.length = 0;
    await client.wallet.send({ to: 'bob', amount: '1', asset: 'usd' });
    const free = transactions.find((calls) => calls.includes('get policies'))!;
    expect(free.slice(0, 2)).toEqual(['lock wallets', 'get policies']);
    expect(free.filter((call) => call.endsWith('policies'))).toEqual(['get policies']);

    // Setting one locks the wallet first, as a send does, then the record.
    transactions.length = 0;
    await sim.setAgentPolicy('alice', { wallet: { per_transaction: { usd: '10' } } });
    const set = transactions.find((calls) => calls.includes('lock policies'))!;
    expect(set.slice(0, 2)).toEqual(['lock wallets', 'lock policies']);

    transactions.length = 0;
    await client.wallet.send({ to: 'bob', amount: '4', asset: 'usd' });
    const send = transactions.find((calls) => calls.includes('get policies'))!;
    expect(send.slice(0, 2)).toEqual(['lock wallets', 'get policies']);
    expect(send).toContain('update policies');

    const before = await runtime.view.get('policies', alice.agent_id);
    transactions.length = 0;
    await expect(client.wallet.send({ to: 'bob', amount: '50', asset: 'usd' })).rejects.toMatchObject({ code: 'policy_violation' });
    expect(transactions[0]!.slice(0, 2)).toEqual(['lock wallets', 'get policies']);
    expect(transactions[0]).not.toContain('update wallets');
    expect(await runtime.view.get('policies', alice.agent_id)).toEqual(before);
    expect((await client.wallet.getBalance()).fiat.usd).toBe('95.00');
  });

  it('mail, SMS and runs lock the policy record before reading it', async () => {
    const { store, transactions } = recordingStore();
    const runtime = keep(await createRuntime({ store }));
    const alice = await runtime.simClient().createAgent({ name: 'alice' });
    const client = runtime.agent(alice.api_key);
    for (const act of [
      () => client.email.send({ to: ['x@example.com'], subject: 's', text: 't' }),
      () => client.phone.sendSms({ to: '+14155550100', body: 'hi' }),
      () => client.compute.run({ runtime: 'bash', code: 'true' }),
    ]) {
      transactions.length = 0;
      await act();
      const guarded = transactions.find((calls) => calls.includes('get policies'))!;
      expect(guarded.indexOf('lock policies')).toBeGreaterThanOrEqual(0);
      expect(guarded.indexOf('lock policies')).toBeLessThan(guarded.indexOf('get policies'));
    }
  });
});
