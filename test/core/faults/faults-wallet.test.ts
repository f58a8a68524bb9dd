import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ABA, EVM_ADDRESS, IBAN, OTHER_EVM_ADDRESS, SOLANA_ADDRESS, walletWorld, type WalletAgent, type WalletWorld } from '../wallet/wallet-world.js';
import { expectApiError } from '../../support/transports.js';

describe('faults on chain.submit and bank.submit', () => {
  let world: WalletWorld;
  let alice: WalletAgent;

  beforeEach(async () => {
    world = await walletWorld();
    alice = await world.agent('alice', { usd: '100', eur: '100', usdc: '100', eth: '1', sol: '10' });
  });
  afterEach(() => world.runtime.close());

  const statusOf = async (id: string) => (await alice.client.wallet.getTransaction(id)).status;
  const injected = async () => (await world.runtime.sim.events(0, 1000)).events.filter((event) => event.type === 'fault.injected');

  it('fail: the send is accepted, then ends failed with the fault reason; the amount comes back, the chain fee is kept', async () => {
    await world.sim.addFault({ target: 'chain.submit', effect: 'fail', error_code: 'execution reverted' });
    const sent = await alice.client.wallet.send({ to: EVM_ADDRESS, amount: '10', asset: 'usdc' });
    expect(sent.status).toBe('pending');
    await world.runtime.sim.advance({ seconds: 4 });
    expect(await statusOf(sent.transaction_id)).toBe('failed');
    expect((await alice.client.wallet.getBalance()).crypto.usdc).toBe('99.990000');
    const updated = (await world.runtime.sim.events(0, 1000)).events.find((event) => event.type === 'wallet.transaction.updated');
    expect(updated?.data).toMatchObject({ status: 'failed', reason: 'execution reverted' });
  });

  it('fail on bank.submit leaves chain sends alone', async () => {
    await world.sim.addFault({ target: 'bank.submit', effect: 'fail' });
    const chain = await alice.client.wallet.send({ to: SOLANA_ADDRESS, amount: '1', asset: 'sol' });
    const bank = await alice.client.wallet.send({ to: ABA, amount: '10', asset: 'usd' });
    await world.runtime.sim.advance({ seconds: 86_400 });
    expect([await statusOf(chain.transaction_id), await statusOf(bank.transaction_id)]).toEqual(['confirmed', 'failed']);
    expect((await alice.client.wallet.getBalance()).fiat.usd).toBe('100.00');
  });

  it('delay: the send settles delay_seconds of service time later', async () => {
    await world.sim.addFault({ target: 'chain.submit', effect: 'delay', delay_seconds: 60 });
    const sent = await alice.client.wallet.send({ to: EVM_ADDRESS, amount: '1', asset: 'usdc' });
    await world.runtime.sim.advance({ seconds: 63 });
    expect(await statusOf(sent.transaction_id)).toBe('pending');
    await world.runtime.sim.advance({ seconds: 1 });
    expect(await statusOf(sent.transaction_id)).toBe('confirmed');
  });

  it('drop: the send is accepted and never completes, and the money stays debited, not lost', async () => {
    await world.sim.addFault({ target: 'bank.submit', effect: 'drop' });
    const sent = await alice.client.wallet.send({ to: IBAN, amount: '10', asset: 'eur' });
    await world.runtime.sim.advance({ seconds: 3 * 365 * 86_400 });
    expect(await statusOf(sent.transaction_id)).toBe('pending');
    expect((await alice.client.wallet.getBalance()).fiat.eur).toBe('89.80');
    const ledger = await world.sim.walletLedger();
    expect(ledger.assets.eur).toEqual({ funded_in: '100.00', held: '89.80', fees_collected: '0.20', sent_out: '10.00' });
  });

  it('match narrows a fault to the operations with those fields; the most specific fault wins', async () => {
    await world.sim.addFault({ target: 'chain.submit', effect: 'delay', delay_seconds: 1000 });
    await world.sim.addFault({ target: 'chain.submit', effect: 'fail', match: { to: OTHER_EVM_ADDRESS.toLowerCase(), asset: 'usdc' } });
    const doomed = await alice.client.wallet.send({ to: OTHER_EVM_ADDRESS, amount: '1', asset: 'usdc' });
    const late = await alice.client.wallet.send({ to: OTHER_EVM_ADDRESS, amount: '0.1', asset: 'eth', network: 'base' });
    await world.runtime.sim.advance({ seconds: 10 });
    expect([await statusOf(doomed.transaction_id), await statusOf(late.transaction_id)]).toEqual(['failed', 'pending']);
    expect((await injected()).map((event) => [event.data.fault_id, event.data.effect])).toEqual([
      ['flt_2', 'fail'],
      ['flt_1', 'delay'],
    ]);
  });

  it('count stops a fault after that many hits; it stays listed with its hits, inactive', async () => {
    await world.sim.addFault({ target: 'chain.submit', effect: 'fail', count: 2 });
    const sends = [];
    for (let i = 0; i < 3; i++) sends.push(await alice.client.wallet.send({ to: SOLANA_ADDRESS, amount: '1', asset: 'sol' }));
    await world.runtime.sim.advance({ seconds: 1 });
    expect(await Promise.all(sends.map((sent) => statusOf(sent.transaction_id)))).toEqual(['failed', 'failed', 'confirmed']);
    expect((await world.sim.listFaults()).faults[0]).toMatchObject({ hits: 2, count: 2, active: false });
  });

  it('each hit appends fault.injected with the fault, the effect and the operation', async () => {
    await world.sim.addFault({ target: 'chain.submit', effect: 'fail', error_code: 'nonce too low' });
    const sent = await alice.client.wallet.send({ to: EVM_ADDRESS, amount: '2', asset: 'usdc' });
    expect(await injected()).toEqual([
      expect.objectContaining({
        type: 'fault.injected',
        agent_id: alice.agent_id,
        data: {
          fault_id: 'flt_1',
          target: 'chain.submit',
          effect: 'fail',
          error_code: 'nonce too low',
          operation: { transaction_id: sent.transaction_id, rail: 'base', asset: 'usdc', amount: '2.000000', to: EVM_ADDRESS.toLowerCase() },
        },
      }),
    ]);
  });

  describe('probability', () => {
    async function outcomes(seed: number): Promise<string[]> {
      const other = await walletWorld({ seed });
      try {
        const payer = await other.agent('payer', { sol: '100' });
        await other.sim.addFault({ target: 'chain.submit', effect: 'fail', probability: 0.5 });
        const sent = [];
        for (let i = 0; i < 24; i++) sent.push(await payer.client.wallet.send({ to: SOLANA_ADDRESS, amount: '0.1', asset: 'sol' }));
        await other.runtime.sim.advance({ seconds: 1 });
        return Promise.all(sent.map(async (send) => (await payer.client.wallet.getTransaction(send.transaction_id)).status));
      } finally {
        await other.runtime.close();
      }
    }

    it('draws from the seeded random port: the same seed fails the same sends, another seed others', async () => {
      const first = await outcomes(11);
      expect(await outcomes(11)).toEqual(first);
      expect(first).toContain('failed');
      expect(first).toContain('confirmed');
      expect(await outcomes(12)).not.toEqual(first);
    });

    it('0 never hits', async () => {
      await world.sim.addFault({ target: 'chain.submit', effect: 'fail', probability: 0 });
      const sent = await alice.client.wallet.send({ to: SOLANA_ADDRESS, amount: '1', asset: 'sol' });
      await world.runtime.sim.advance({ seconds: 1 });
      expect(await statusOf(sent.transaction_id)).toBe('confirmed');
      expect(await injected()).toEqual([]);
    });
  });

  describe('the /_sim/wallet/failures shorthand', () => {
    it('next: one fail fault per rail target, used up together by the first send', async () => {
      const rule = await world.sim.addWalletFailure({ next: true, reason: 'reverted' });
      expect(rule).toEqual({ rule_id: 'flt_1', recipient: null, remaining: 1, reason: 'reverted' });
      expect((await world.sim.listFaults()).faults).toEqual([
        expect.objectContaining({ fault_id: 'flt_1', target: 'chain.submit', effect: 'fail', count: 1, error_code: 'reverted', group: 'flt_1', active: true }),
        expect.objectContaining({ fault_id: 'flt_2', target: 'bank.submit', effect: 'fail', count: 1, error_code: 'reverted', group: 'flt_1', active: true }),
      ]);
      const chain = await alice.client.wallet.send({ to: SOLANA_ADDRESS, amount: '1', asset: 'sol' });
      const bank = await alice.client.wallet.send({ to: ABA, amount: '1', asset: 'usd' });
      await world.runtime.sim.advance({ seconds: 86_400 });
      expect([await statusOf(chain.transaction_id), await statusOf(bank.transaction_id)]).toEqual(['failed', 'confirmed']);
      expect((await world.sim.listFaults()).faults.map((fault) => fault.active)).toEqual([false, false]);
    });

    it('recipient: a fail fault matching the recipient on its rail; clearing removes only rail faults', async () => {
      const rule = await world.sim.addWalletFailure({ recipient: IBAN.toLowerCase() });
      expect(rule).toEqual({ rule_id: 'flt_1', recipient: IBAN, remaining: null, reason: 'simulated failure' });
      await world.sim.addFault({ target: 'mail.send', effect: 'drop' });
      expect((await world.sim.listFaults()).faults[0]).toMatchObject({ target: 'bank.submit', match: { to: IBAN } });
      await world.sim.clearWalletFailures();
      expect((await world.sim.listFaults()).faults.map((fault) => fault.target)).toEqual(['mail.send']);
      await expectApiError(world.sim.addWalletFailure({ recipient: 'bob' }), 400, 'invalid_recipient', 'recipient');
    });
  });
});

describe('faults on persistence.write', () => {
  let world: WalletWorld;
  let alice: WalletAgent;

  beforeEach(async () => {
    world = await walletWorld({ onInternalError: () => {} });
    alice = await world.agent('alice', { usd: '100', usdc: '100' });
    await world.agent('bob');
  });
  afterEach(() => world.runtime.close());

  it('fails the request with 500 internal_error and leaves every record exactly as it was; money is neither lost nor created', async () => {
    const before = await world.runtime.sim.snapshot();
    await world.sim.addFault({ target: 'persistence.write', effect: 'fail', match: { route: 'wallet.send' } });
    const afterAdding = (await world.runtime.sim.snapshot()).store.collections;
    await expectApiError(alice.client.wallet.send({ to: 'bob', amount: '40', asset: 'usd' }), 500, 'internal_error');
    await expectApiError(alice.client.wallet.send({ to: EVM_ADDRESS, amount: '5', asset: 'usdc' }), 500, 'internal_error');
    const after = (await world.runtime.sim.snapshot()).store.collections;
    for (const [name, collection] of Object.entries(before.store.collections)) {
      if (name === 'events' || name === 'sim_faults') continue;
      expect(after[name], name).toEqual(collection);
    }
    expect(Object.keys(after).sort()).toEqual(Object.keys(afterAdding).sort());
    expect((await alice.client.wallet.getBalance()).fiat.usd).toBe('100.00');
    expect((await world.sim.walletLedger()).assets.usd).toEqual({ funded_in: '100.00', held: '100.00', fees_collected: '0.00', sent_out: '0.00' });
    expect((await world.sim.listFaults()).faults[0]).toMatchObject({ hits: 2 });
    const events = (await world.runtime.sim.events(0, 1000)).events.filter((event) => event.type === 'fault.injected');
    expect(events.map((event) => event.data)).toEqual([
      { fault_id: 'flt_1', target: 'persistence.write', effect: 'fail', operation: { route: 'wallet.send' } },
      { fault_id: 'flt_1', target: 'persistence.write', effect: 'fail', operation: { route: 'wallet.send' } },
    ]);
  });

  it('leaves other routes, reads and the control plane alone, and stops after count', async () => {
    await world.sim.addFault({ target: 'persistence.write', effect: 'fail', count: 1 });
    await expectApiError(alice.client.wallet.createInvoice({ to: 'bob', amount: '5', currency: 'usd' }), 500, 'internal_error');
    expect((await alice.client.wallet.getBalance()).fiat.usd).toBe('100.00');
    await world.sim.fundWallet({ handle: 'alice', asset: 'usd', amount: '1' });
    const sent = await alice.client.wallet.send({ to: 'bob', amount: '1', asset: 'usd' });
    expect(sent.status).toBe('confirmed');
  });
});
