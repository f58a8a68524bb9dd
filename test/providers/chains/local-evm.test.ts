import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceUntil, CHAIN_STORES, chainWorld, expectCovered, OUTSIDE, type ChainWorld } from './chain-world.js';
import { expectApiError } from '../../support/transports.js';

describe.each(CHAIN_STORES)('base on a local chain (Hardhat EDR in the process), world in %s', (store) => {
  let world: ChainWorld;
  beforeAll(async () => {
    world = await chainWorld({ wallet: { chains: { base: 'local' } } }, store);
  });
  afterAll(async () => {
    await world.runtime.close();
  });

  // First, before any deposit: a deposit's sweep (the hot wallet's gas to the agent's address, then
  // the transfer) runs on the pollers' real timers and may still be mining during a later test's clock
  // advance, paying gas that would read here as a change of holdings.
  it('broadcasts nothing for a send above the balance', async () => {
    const carol = await world.agent('carol');
    const before = await world.sim.chainHoldings({ network: 'base' });
    await expectApiError(carol.client.wallet.send({ to: OUTSIDE, amount: '1', asset: 'usdc', network: 'base' }), 402, 'insufficient_funds');
    await world.sim.advanceClock({ seconds: 4 });
    expect((await world.sim.chainHoldings({ network: 'base' })).holdings).toEqual(before.holdings);
  });

  it('credits a usdc deposit from the faucet once, pending then confirmed, with from, network and reference', async () => {
    const alice = await world.agent('alice');
    const deposit = await world.sim.chainDeposit({ network: 'base', asset: 'usdc', amount: '25', to: 'alice' });
    expect(deposit).toMatchObject({ network: 'base', to: alice.address, asset: 'usdc', amount: '25.000000' });
    const record = await advanceUntil(world.sim, 2, async () => {
      const [found] = (await alice.client.wallet.listTransactions({ direction: 'in' })).transactions;
      expect(found).toMatchObject({ status: 'confirmed', reference: deposit.reference, network: 'base', amount: '25.000000' });
      return found!;
    });
    expect(record.from).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect((await alice.client.wallet.getBalance()).crypto.usdc).toBe('25.000000');
    const events = (await world.runtime.sim.events(0, 10_000)).events.filter((event) => event.data.transaction_id === record.id);
    expect(events.map((event) => event.type)).toEqual(['wallet.transaction.created', 'wallet.transaction.updated']);
    await world.sim.advanceClock({ seconds: 20 });
    expect((await alice.client.wallet.getBalance()).crypto.usdc).toBe('25.000000');
    await expectCovered(world.sim, 'base');
  });

  it('credits native ETH deposits, and sends usdc and eth from the hot wallet that arrive on chain exactly', async () => {
    const bob = await world.agent('bob');
    await world.sim.chainDeposit({ network: 'base', asset: 'eth', amount: '1.5', to: bob.address });
    await world.sim.chainDeposit({ network: 'base', asset: 'usdc', amount: '10', to: 'bob' });
    await advanceUntil(world.sim, 2, async () => {
      const balance = (await bob.client.wallet.getBalance()).crypto;
      expect([balance.eth, balance.usdc]).toEqual(['1.500000000000000000', '10.000000']);
    });
    const before = await world.sim.chainHoldings({ network: 'base' });
    const sent = await bob.client.wallet.send({ to: OUTSIDE, amount: '3', asset: 'usdc', network: 'base' });
    const eth = await bob.client.wallet.send({ to: OUTSIDE, amount: '0.25', asset: 'eth', network: 'base' });
    expect(sent.status).toBe('pending');
    const record = await bob.client.wallet.getTransaction(sent.transaction_id);
    expect(record.reference).toMatch(/^0x[0-9a-f]{64}$/);
    await advanceUntil(world.sim, 2, async () => {
      expect((await bob.client.wallet.getTransaction(sent.transaction_id)).status).toBe('confirmed');
      expect((await bob.client.wallet.getTransaction(eth.transaction_id)).status).toBe('confirmed');
    });
    const after = await world.sim.chainHoldings({ network: 'base' });
    // The hot wallet paid 3 usdc out (the 0.01 fee stays in custody) and 0.25 ETH plus gas.
    expect(Number(before.holdings.usdc) - Number(after.holdings.usdc)).toBeCloseTo(3, 6);
    expect(Number(before.holdings.eth) - Number(after.holdings.eth)).toBeGreaterThan(0.25);
    expect((await bob.client.wallet.getBalance()).crypto.usdc).toBe('6.990000');
    await expectCovered(world.sim, 'base');
  });

  it('leaves networks not configured simulated', async () => {
    const dave = await world.agent('dave');
    await world.sim.chainDeposit({ network: 'solana', asset: 'sol', amount: '1', to: 'dave', from: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' });
    await world.sim.advanceClock({ seconds: 1 });
    expect((await dave.client.wallet.getBalance()).crypto.sol).toBe('1.000000000');
    await expectApiError(world.sim.chainDeposit({ network: 'base', asset: 'usdc', amount: '1', to: 'dave', from: OUTSIDE }), 400, 'invalid_request', 'from');
  });
});

describe.each(CHAIN_STORES)('ethereum on a local chain (l1, a block every 12 s of service time), world in %s', (store) => {
  it('credits a deposit at the depth and settles a send on chain', async () => {
    const world = await chainWorld({ wallet: { chains: { ethereum: 'local' }, confirmations: { ethereum: 2 } } }, store);
    try {
      const erin = await world.agent('erin');
      const deposit = await world.sim.chainDeposit({ network: 'ethereum', asset: 'eth', amount: '2', to: 'erin' });
      // Mined in the next block, credited once one more block is on top of it (depth 2).
      await advanceUntil(world.sim, 12, async () => {
        const [record] = (await erin.client.wallet.listTransactions({ direction: 'in' })).transactions;
        expect(record).toMatchObject({ reference: deposit.reference, status: 'pending' });
      });
      await advanceUntil(world.sim, 12, async () => expect((await erin.client.wallet.getBalance()).crypto.eth).toBe('2.000000000000000000'));
      const sent = await erin.client.wallet.send({ to: OUTSIDE, amount: '1', asset: 'eth', network: 'ethereum' });
      await advanceUntil(world.sim, 12, async () => expect((await erin.client.wallet.getTransaction(sent.transaction_id)).status).toBe('confirmed'));
      expect((await erin.client.wallet.getBalance()).crypto.eth).toBe('0.999800000000000000');
      await expectCovered(world.sim, 'ethereum');
    } finally {
      await world.runtime.close();
    }
  });
});
