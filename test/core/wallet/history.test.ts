import { beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { expectApiError } from '../../support/transports.js';
import { EVM_ADDRESS, walletWorld, wholeHistory, type WalletAgent, type WalletWorld } from './wallet-world.js';

describe('wallet.transactions', () => {
  let world: WalletWorld;
  let alice: WalletAgent;
  let bob: WalletAgent;

  beforeEach(async () => {
    world = await walletWorld();
    alice = await world.agent('alice', { usd: '1000', usdc: '1000' });
    bob = await world.agent('bob', { usd: '1000' });
  });

  it('answers 20 records newest first by default, with a cursor to the rest', async () => {
    for (let i = 1; i <= 25; i++) await alice.client.wallet.send({ to: 'bob', amount: String(i), asset: 'usd' });
    const first = await alice.client.wallet.listTransactions();
    expect(first.transactions).toHaveLength(20);
    expect(first.transactions[0]!.amount).toBe('25.00');
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await alice.client.wallet.listTransactions({ cursor: first.next_cursor! });
    expect(second.transactions.map((record) => record.amount)).toEqual(['5.00', '4.00', '3.00', '2.00', '1.00', '1000.000000', '1000.00']);
    expect(second.next_cursor).toBeNull();
  });

  it.each([0, 101, -1, 2.5, 'ten'])('refuses limit=%s with 400 invalid_request on limit', async (limit) => {
    await expectApiError(alice.client.wallet.listTransactions({ limit: limit as number }), 400, 'invalid_request', 'limit');
  });

  it('accepts limits 1 and 100', async () => {
    expect((await alice.client.wallet.listTransactions({ limit: 1 })).transactions).toHaveLength(1);
    expect((await alice.client.wallet.listTransactions({ limit: 100 })).transactions).toHaveLength(2);
  });

  it('refuses an unknown asset or direction, and a cursor of another list, with 400 invalid_request', async () => {
    await expectApiError(alice.client.wallet.listTransactions({ asset: 'btc' as never }), 400, 'invalid_request', 'asset');
    await expectApiError(alice.client.wallet.listTransactions({ direction: 'sideways' as never }), 400, 'invalid_request', 'direction');
    await expectApiError(alice.client.wallet.listTransactions({ cursor: 'garbage' }), 400, 'invalid_request', 'cursor');
    for (let i = 0; i < 3; i++) await alice.client.wallet.send({ to: 'bob', amount: '1', asset: 'usd' });
    const page = await alice.client.wallet.listTransactions({ limit: 1 });
    await expectApiError(alice.client.wallet.listTransactions({ limit: 1, cursor: page.next_cursor!, asset: 'usd' }), 400, 'invalid_request', 'cursor');
  });

  it('filters by asset, by direction and by both', async () => {
    await alice.client.wallet.send({ to: 'bob', amount: '1', asset: 'usd' });
    await bob.client.wallet.send({ to: 'alice', amount: '2', asset: 'usd' });
    await alice.client.wallet.send({ to: EVM_ADDRESS, amount: '3', asset: 'usdc' });
    const summary = (records: Array<{ direction: string; asset: string; amount: string }>) => records.map((r) => `${r.direction} ${r.asset} ${r.amount}`);
    expect(summary(await wholeHistory(alice.client, { asset: 'usdc' }))).toEqual(['out usdc 3.000000', 'in usdc 1000.000000']);
    expect(summary(await wholeHistory(alice.client, { direction: 'out' }))).toEqual(['out usdc 3.000000', 'out usd 1.00']);
    expect(summary(await wholeHistory(alice.client, { asset: 'usd', direction: 'in' }))).toEqual(['in usd 2.00', 'in usd 1000.00']);
    expect(await wholeHistory(alice.client, { asset: 'eth' })).toEqual([]);
  });

  it('shows status changes in filtered lists too', async () => {
    const sent = await alice.client.wallet.send({ to: EVM_ADDRESS, amount: '3', asset: 'usdc' });
    await world.runtime.sim.advance({ seconds: 4 });
    const [record] = (await alice.client.wallet.listTransactions({ asset: 'usdc', direction: 'out' })).transactions;
    expect([record!.id, record!.status]).toEqual([sent.transaction_id, 'confirmed']);
  });

  it("answers 404 not_found for another agent's transaction and for an unknown id", async () => {
    const sent = await alice.client.wallet.send({ to: EVM_ADDRESS, amount: '1', asset: 'usdc' });
    await expectApiError(bob.client.wallet.getTransaction(sent.transaction_id), 404, 'not_found');
    await expectApiError(alice.client.wallet.getTransaction('txn_nope'), 404, 'not_found');
  });

  it('walks every record that existed when the walk began exactly once while sends keep arriving', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 9 }),
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 12 }),
        fc.constantFrom<Array<{ asset?: 'usd'; direction?: 'in' | 'out' }>>([{}], [{ asset: 'usd' }], [{ direction: 'in' }], [{ asset: 'usd', direction: 'out' }]),
        async (existing, limit, arrivals, [filter]) => {
          const local = await walletWorld();
          const a = await local.agent('alice', { usd: '100000' });
          const b = await local.agent('bob', { usd: '100000' });
          for (let i = 0; i < existing; i++) {
            if (i % 3 === 0) await b.client.wallet.send({ to: 'alice', amount: '1', asset: 'usd' });
            else await a.client.wallet.send({ to: 'bob', amount: '1', asset: 'usd' });
          }
          const before = (await wholeHistory(a.client, filter)).map((record) => record.id);
          const seen: string[] = [];
          let cursor: string | undefined;
          let step = 0;
          do {
            const page = await a.client.wallet.listTransactions({ limit, ...filter, ...(cursor ? { cursor } : {}) });
            seen.push(...page.transactions.map((record) => record.id));
            cursor = page.next_cursor ?? undefined;
            for (let i = 0; i < (arrivals[step++ % arrivals.length] ?? 0); i++) {
              await a.client.wallet.send({ to: 'bob', amount: '1', asset: 'usd' });
              await b.client.wallet.send({ to: 'alice', amount: '1', asset: 'usd' });
            }
          } while (cursor);
          expect(seen).toEqual(before);
        },
      ),
      { numRuns: 25 },
    );
  });
});
