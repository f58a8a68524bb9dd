import { beforeEach, describe, expect, it } from 'vitest';
import { expectApiError } from '../../support/transports.js';
import { ABA, EVM_ADDRESS, IBAN, OTHER_EVM_ADDRESS, SOLANA_ADDRESS, walletWorld, type WalletAgent, type WalletWorld } from './wallet-world.js';

describe('wallet settlement (fake chain and simulated bank)', () => {
  let world: WalletWorld;
  let alice: WalletAgent;

  beforeEach(async () => {
    world = await walletWorld();
    alice = await world.agent('alice', { usd: '100', eur: '100', usdc: '100', eth: '1', sol: '10' });
  });

  const statusOf = async (id: string) => (await alice.client.wallet.getTransaction(id)).status;

  it.each([
    ['base', 4, EVM_ADDRESS, 'usdc', 'base'],
    ['ethereum', 24, EVM_ADDRESS, 'eth', 'ethereum'],
    ['solana', 1, SOLANA_ADDRESS, 'sol', undefined],
    ['an IBAN bank transfer', 86_400, IBAN, 'eur', undefined],
    ['an ABA bank transfer', 86_400, ABA, 'usd', undefined],
  ] as const)('keeps a send over %s pending until %i s of service time, then confirms it', async (_rail, seconds, to, asset, network) => {
    const sent = await alice.client.wallet.send({ to, amount: '0.5', asset, ...(network ? { network } : {}) });
    expect(sent.status).toBe('pending');
    await world.runtime.sim.advance({ seconds: seconds - 0.001 });
    expect(await statusOf(sent.transaction_id)).toBe('pending');
    await world.runtime.sim.advance({ seconds: 0.001 });
    expect(await statusOf(sent.transaction_id)).toBe('confirmed');
  });

  it('gives every on-chain send a transaction hash in its events and emits updated on confirmation', async () => {
    const after = (await world.runtime.sim.events(0, 1000)).events.length;
    const evm = await alice.client.wallet.send({ to: EVM_ADDRESS, amount: '1', asset: 'usdc' });
    const sol = await alice.client.wallet.send({ to: SOLANA_ADDRESS, amount: '1', asset: 'usdc' });
    await world.runtime.sim.advance({ seconds: 5 });
    const events = (await world.runtime.sim.events(after, 100)).events;
    const created = events.filter((event) => event.type === 'wallet.transaction.created');
    expect(created.map((event) => event.data.transaction_id)).toEqual([evm.transaction_id, sol.transaction_id]);
    expect(created[0]!.data.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(created[1]!.data.tx_hash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{80,90}$/);
    const updated = events.filter((event) => event.type === 'wallet.transaction.updated');
    expect(updated.map((event) => [event.data.transaction_id, event.data.previous_status, event.data.status, event.at])).toEqual([
      [sol.transaction_id, 'pending', 'confirmed', '2026-01-01T00:00:01.000Z'],
      [evm.transaction_id, 'pending', 'confirmed', '2026-01-01T00:00:04.000Z'],
    ]);
  });

  it('confirms transfers in time order whatever order they were sent in', async () => {
    const slow = await alice.client.wallet.send({ to: EVM_ADDRESS, amount: '1', asset: 'usdc', network: 'ethereum' });
    await world.runtime.sim.advance({ seconds: 10 });
    const fast = await alice.client.wallet.send({ to: SOLANA_ADDRESS, amount: '1', asset: 'sol' });
    await world.runtime.sim.advance({ seconds: 1 });
    expect([await statusOf(slow.transaction_id), await statusOf(fast.transaction_id)]).toEqual(['pending', 'confirmed']);
    await world.runtime.sim.advance({ seconds: 13 });
    expect(await statusOf(slow.transaction_id)).toBe('confirmed');
  });

  describe('failure injection', () => {
    it('fails the next on-chain send after it was accepted: the amount comes back, the on-chain fee is kept', async () => {
      const rule = await world.sim.addWalletFailure({ next: true, reason: 'reverted' });
      expect(rule).toEqual({ rule_id: expect.any(String), recipient: null, remaining: 1, reason: 'reverted' });
      const sent = await alice.client.wallet.send({ to: EVM_ADDRESS, amount: '10', asset: 'usdc' });
      expect(sent.status).toBe('pending');
      expect((await alice.client.wallet.getBalance()).crypto.usdc).toBe('89.990000');
      const after = (await world.runtime.sim.events(0, 1000)).events.length;
      await world.runtime.sim.advance({ seconds: 4 });
      expect(await statusOf(sent.transaction_id)).toBe('failed');
      expect((await alice.client.wallet.getBalance()).crypto.usdc).toBe('99.990000');
      const [updated] = (await world.runtime.sim.events(after, 10)).events;
      expect(updated).toMatchObject({ type: 'wallet.transaction.updated', data: { status: 'failed', previous_status: 'pending', reason: 'reverted' } });
      const next = await alice.client.wallet.send({ to: EVM_ADDRESS, amount: '1', asset: 'usdc' });
      await world.runtime.sim.advance({ seconds: 4 });
      expect(await statusOf(next.transaction_id)).toBe('confirmed');
    });

    it('fails a bank send and returns the amount and the bank fee', async () => {
      await world.sim.addWalletFailure({ next: true });
      const sent = await alice.client.wallet.send({ to: ABA, amount: '10', asset: 'usd' });
      expect((await alice.client.wallet.getBalance()).fiat.usd).toBe('89.75');
      await world.runtime.sim.advance({ seconds: 86_400 });
      expect(await statusOf(sent.transaction_id)).toBe('failed');
      expect((await alice.client.wallet.getBalance()).fiat.usd).toBe('100.00');
    });

    it('fails every send to a recipient, however its address is spelled, and no other', async () => {
      await world.sim.addWalletFailure({ recipient: EVM_ADDRESS.toLowerCase() });
      const doomed = [await alice.client.wallet.send({ to: EVM_ADDRESS, amount: '1', asset: 'usdc' }), await alice.client.wallet.send({ to: EVM_ADDRESS.toLowerCase(), amount: '0.5', asset: 'eth', network: 'ethereum' })];
      const fine = await alice.client.wallet.send({ to: OTHER_EVM_ADDRESS, amount: '1', asset: 'usdc' });
      await world.runtime.sim.advance({ seconds: 30 });
      expect(await Promise.all(doomed.map((sent) => statusOf(sent.transaction_id)))).toEqual(['failed', 'failed']);
      expect(await statusOf(fine.transaction_id)).toBe('confirmed');
    });

    it('stops failing once the rules are cleared', async () => {
      await world.sim.addWalletFailure({ recipient: IBAN });
      await world.sim.clearWalletFailures();
      const sent = await alice.client.wallet.send({ to: IBAN, amount: '1', asset: 'eur' });
      await world.runtime.sim.advance({ seconds: 86_400 });
      expect(await statusOf(sent.transaction_id)).toBe('confirmed');
    });

    it('never touches book transfers (they confirm at once) and refuses a handle as a failure recipient', async () => {
      await world.agent('bob');
      await world.sim.addWalletFailure({ next: true });
      const book = await alice.client.wallet.send({ to: 'bob', amount: '1', asset: 'usd' });
      expect(book.status).toBe('confirmed');
      await expectApiError(world.sim.addWalletFailure({ recipient: 'bob' }), 400, 'invalid_recipient', 'recipient');
      await expectApiError(world.sim.addWalletFailure({}), 400, 'invalid_request', 'next');
      await expectApiError(world.sim.addWalletFailure({ next: true, recipient: IBAN }), 400, 'invalid_request', 'next');
    });

    it('counts a failed send against reputation and keeps the ledger balanced', async () => {
      const before = (await alice.client.identity.getProfile()).reputation;
      await world.sim.addWalletFailure({ next: true });
      await alice.client.wallet.send({ to: SOLANA_ADDRESS, amount: '2', asset: 'sol' });
      await world.runtime.sim.advance({ seconds: 1 });
      expect((await alice.client.identity.getProfile()).reputation).toBe(before - 5);
      const sol = (await world.sim.walletLedger()).assets.sol;
      expect(sol).toEqual({ funded_in: '10.000000000', held: '9.999995000', fees_collected: '0.000005000', sent_out: '0.000000000' });
    });
  });

  it('survives a snapshot and restore with transfers in flight', async () => {
    await world.sim.addWalletFailure({ next: true });
    const failing = await alice.client.wallet.send({ to: EVM_ADDRESS, amount: '1', asset: 'usdc' });
    const confirming = await alice.client.wallet.send({ to: EVM_ADDRESS, amount: '2', asset: 'usdc' });
    const snapshot = await world.runtime.sim.snapshot();
    const copy = await walletWorld();
    await copy.runtime.sim.restore(snapshot);
    const client = copy.runtime.agent(alice.api_key);
    await copy.runtime.sim.advance({ seconds: 4 });
    expect((await client.wallet.getTransaction(failing.transaction_id)).status).toBe('failed');
    expect((await client.wallet.getTransaction(confirming.transaction_id)).status).toBe('confirmed');
    expect((await client.wallet.getBalance()).crypto.usdc).toBe('97.980000');
  });
});
