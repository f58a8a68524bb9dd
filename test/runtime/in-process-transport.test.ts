import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/index.js';
import { ApiError } from '../../src/core/shared/api-error.js';

describe('in-process calls', () => {
  it('answer what the wire would carry: a copy of the JSON answer, not the stored objects', async () => {
    const runtime = await createRuntime({ seed: 1 });
    const sim = runtime.simClient();
    const alice = runtime.agent((await sim.createAgent({ name: 'alice', balances: { usd: '10' } })).api_key);
    await sim.createAgent({ name: 'bob' });
    const input = { to: 'bob', amount: '1.00', asset: 'usd' as const, memo: undefined };
    const sent = await alice.wallet.send(input);
    expect(Object.keys(sent).sort()).toEqual(['fee', 'sent_at', 'status', 'transaction_id']);
    // The answer is the caller's own: changing it changes nothing stored.
    (sent.fee as { amount: string }).amount = 'changed';
    const listed = await alice.wallet.listTransactions();
    expect(listed.transactions[0]!.fee.amount).toBe('0.00');
    expect(Object.isFrozen(listed.transactions[0])).toBe(false);
    await runtime.close();
  });

  it('reject, rather than throw, an input JSON cannot carry, and store nothing of it', async () => {
    const runtime = await createRuntime({ seed: 1 });
    const sim = runtime.simClient();
    const alice = runtime.agent((await sim.createAgent({ name: 'alice', balances: { usd: '10' } })).api_key);
    await sim.createAgent({ name: 'bob' });
    let answered: Promise<unknown> | undefined;
    expect(() => {
      answered = alice.wallet.send({ to: 'bob', amount: 1n as unknown as string, asset: 'usd' });
    }).not.toThrow();
    await expect(answered).rejects.toThrow(TypeError);
    await expect(alice.wallet.send({ to: 'bob', amount: '0', asset: 'usd' })).rejects.toBeInstanceOf(ApiError);
    expect((await alice.wallet.listTransactions()).transactions.filter((t) => t.direction === 'out')).toEqual([]);
    await runtime.close();
  });
});
