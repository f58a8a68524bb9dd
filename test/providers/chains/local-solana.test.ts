import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError } from '../../support/transports.js';
import { advanceUntil, CHAIN_STORES, chainWorld, eventually, type ChainWorld } from './chain-world.js';

const OUTSIDE = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';

describe.each(CHAIN_STORES)('solana on a local chain (LiteSVM in the process), world in %s', (store) => {
  let world: ChainWorld;
  beforeAll(async () => {
    world = await chainWorld({ wallet: { chains: { solana: 'local' } } }, store);
    await world.sim.chainHoldings({ network: 'solana' });
  }, 60_000);
  afterAll(async () => {
    await world.runtime.close();
  });

  const solanaAddress = async (client: Awaited<ReturnType<ChainWorld['agent']>>['client']) => (await client.wallet.getAddresses()).addresses.find((entry) => entry.network === 'solana')!.address;

  it('credits SOL and usdc deposits from the faucet once, with from, network and reference', async () => {
    const alice = await world.agent('alice');
    const address = await solanaAddress(alice.client);
    const usdc = await world.sim.chainDeposit({ network: 'solana', asset: 'usdc', amount: '12.5', to: 'alice' });
    const sol = await world.sim.chainDeposit({ network: 'solana', asset: 'sol', amount: '2', to: address });
    expect(usdc).toMatchObject({ network: 'solana', to: address, asset: 'usdc', amount: '12.500000' });
    // LiteSVM applies a transaction at once (the poller sees it when its slot is made).
    const deposited = await world.sim.chainHoldings({ network: 'solana' });
    await advanceUntil(world.sim, 1, async () => {
      const balance = (await alice.client.wallet.getBalance()).crypto;
      expect([balance.usdc, balance.sol]).toEqual(['12.500000', '2.000000000']);
    });
    const records = (await alice.client.wallet.listTransactions({ direction: 'in' })).transactions;
    expect(records.map((record) => record.reference).sort()).toEqual([usdc.reference, sol.reference].sort());
    expect(records.every((record) => record.status === 'confirmed' && record.network === 'solana' && record.from.length > 30)).toBe(true);
    await world.sim.advanceClock({ seconds: 5 });
    expect((await alice.client.wallet.getBalance()).crypto.usdc).toBe('12.500000');
    // Both deposits were swept to the hot wallet, which paid the two sweeps' fees (two signatures of 5000 lamports each).
    await eventually(async () => expect(Math.round((Number(deposited.holdings.sol) - Number((await world.sim.chainHoldings({ network: 'solana' })).holdings.sol)) * 1e9)).toBe(20_000));
    const holdings = await world.sim.chainHoldings({ network: 'solana' });
    expect(holdings.holdings.usdc).toBe(deposited.holdings.usdc);
    expect(Number(holdings.holdings.usdc)).toBeGreaterThanOrEqual(Number(holdings.ledger.usdc));
    expect(Number(holdings.holdings.sol)).toBeGreaterThanOrEqual(Number(holdings.ledger.sol));
  });

  it('sends usdc and SOL from the hot wallet that arrive on chain, confirmed; a send above balance sends nothing', async () => {
    const bob = await world.agent('bob');
    await world.sim.chainDeposit({ network: 'solana', asset: 'usdc', amount: '10', to: 'bob' });
    await world.sim.chainDeposit({ network: 'solana', asset: 'sol', amount: '1', to: 'bob' });
    await advanceUntil(world.sim, 1, async () => expect((await bob.client.wallet.getBalance()).crypto.sol).toBe('1.000000000'));
    const before = await world.sim.chainHoldings({ network: 'solana' });
    await expectApiError(bob.client.wallet.send({ to: OUTSIDE, amount: '11', asset: 'usdc' }), 402, 'insufficient_funds');
    const usdc = await bob.client.wallet.send({ to: OUTSIDE, amount: '4', asset: 'usdc' });
    const sol = await bob.client.wallet.send({ to: OUTSIDE, amount: '0.5', asset: 'sol' });
    expect((await bob.client.wallet.getTransaction(usdc.transaction_id)).reference).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    await advanceUntil(world.sim, 1, async () => {
      expect((await bob.client.wallet.getTransaction(usdc.transaction_id)).status).toBe('confirmed');
      expect((await bob.client.wallet.getTransaction(sol.transaction_id)).status).toBe('confirmed');
    });
    const after = await world.sim.chainHoldings({ network: 'solana' });
    // The hot wallet paid exactly 4 usdc out (the 0.001 fee stays in custody).
    expect(Math.round((Number(before.holdings.usdc) - Number(after.holdings.usdc)) * 1e6)).toBe(4_000_000);
    expect(Number(before.holdings.sol) - Number(after.holdings.sol)).toBeGreaterThan(0.5);
    expect((await bob.client.wallet.getBalance()).crypto.usdc).toBe('5.999000');
  });
});
