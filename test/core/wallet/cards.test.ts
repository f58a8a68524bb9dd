import { beforeEach, describe, expect, it } from 'vitest';
import { expectApiError } from '../../support/transports.js';
import { walletWorld, wholeHistory, type WalletAgent, type WalletWorld } from './wallet-world.js';

describe('wallet.cards', () => {
  let world: WalletWorld;
  let alice: WalletAgent;

  beforeEach(async () => {
    world = await walletWorld();
    alice = await world.agent('alice', { usd: '100' });
  });

  it('issues an active usd card with last4, a three-year expiry and the limit, never the number', async () => {
    const card = await alice.client.wallet.createCard({ limit: '50', currency: 'usd', label: 'ads' });
    expect(card).toEqual({ card_id: expect.stringMatching(/^card_/), last4: expect.stringMatching(/^\d{4}$/), expires_at: '2029-01-01', limit: '50.00', currency: 'usd', label: 'ads', status: 'active' });
    expect(await alice.client.wallet.getCard(card.card_id)).toEqual(card);
    const snapshot = JSON.stringify(await world.runtime.sim.snapshot());
    expect(snapshot).not.toMatch(new RegExp(`4\\d{11}${card.last4}`));
  });

  it('lists cards newest first with a cursor, and hides them from other agents', async () => {
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await alice.client.wallet.createCard({ limit: '10', currency: 'usd' }));
    const first = await alice.client.wallet.listCards({ limit: 2 });
    expect(first.cards.map((card) => card.card_id)).toEqual([made[2]!.card_id, made[1]!.card_id]);
    const rest = await alice.client.wallet.listCards({ limit: 2, cursor: first.next_cursor! });
    expect(rest).toEqual({ cards: [made[0]], next_cursor: null });
    expect(made[0]!.label).toBe('');
    const bob = await world.agent('bob');
    expect((await bob.client.wallet.listCards()).cards).toEqual([]);
    await expectApiError(bob.client.wallet.getCard(made[0]!.card_id), 404, 'not_found');
  });

  it.each([
    [{ limit: '0', currency: 'usd' }, 'invalid_amount', 'limit'],
    [{ limit: '-5', currency: 'usd' }, 'invalid_amount', 'limit'],
    [{ limit: '1.001', currency: 'usd' }, 'invalid_amount', 'limit'],
    [{ limit: '10', currency: 'eur' }, 'invalid_request', 'currency'],
    [{ limit: '10' }, 'invalid_request', 'currency'],
    [{ currency: 'usd' }, 'invalid_request', 'limit'],
  ])('refuses %o with 400 %s on %s', async (body, code, param) => {
    await expectApiError(alice.client.wallet.createCard(body as never), 400, code as never, param);
    expect((await alice.client.wallet.listCards()).cards).toEqual([]);
  });

  it('approves charges within the all-time limit as usd out records to the merchant', async () => {
    const card = await alice.client.wallet.createCard({ limit: '30', currency: 'usd' });
    const charge = await world.sim.chargeCard(card.card_id, { amount: '12.34', merchant: 'ACME Books' });
    expect(charge).toEqual({ approved: true, transaction_id: expect.stringMatching(/^txn_/) });
    expect((await alice.client.wallet.getBalance()).fiat.usd).toBe('87.66');
    expect(await alice.client.wallet.getTransaction(charge.transaction_id!)).toMatchObject({ direction: 'out', amount: '12.34', asset: 'usd', to: 'ACME Books', status: 'confirmed', network: null });
    expect((await world.runtime.sim.events(0, 100)).events.at(-1)).toMatchObject({ type: 'card.charge.approved', data: { card_id: card.card_id, amount: '12.34' } });
  });

  it('declines with spending_limit when the total spend would pass the limit, and nothing moves', async () => {
    const card = await alice.client.wallet.createCard({ limit: '30', currency: 'usd' });
    expect((await world.sim.chargeCard(card.card_id, { amount: '20', merchant: 'A' })).approved).toBe(true);
    const history = await wholeHistory(alice.client);
    expect(await world.sim.chargeCard(card.card_id, { amount: '10.01', merchant: 'B' })).toEqual({ approved: false, decline_reason: 'spending_limit' });
    expect((await alice.client.wallet.getBalance()).fiat.usd).toBe('80.00');
    expect(await wholeHistory(alice.client)).toEqual(history);
    expect((await world.runtime.sim.events(0, 100)).events.at(-1)).toMatchObject({ type: 'card.charge.declined', data: { decline_reason: 'spending_limit' } });
    expect((await world.sim.chargeCard(card.card_id, { amount: '10', merchant: 'C' })).approved).toBe(true);
  });

  it('declines with insufficient_funds when the usd balance is short', async () => {
    const card = await alice.client.wallet.createCard({ limit: '500', currency: 'usd' });
    expect(await world.sim.chargeCard(card.card_id, { amount: '100.01', merchant: 'A' })).toEqual({ approved: false, decline_reason: 'insufficient_funds' });
    expect((await alice.client.wallet.getBalance()).fiat.usd).toBe('100.00');
    expect((await world.sim.chargeCard(card.card_id, { amount: '100', merchant: 'A' })).approved).toBe(true);
  });

  it('refuses bad charges: unknown card 404, bad amount 400 invalid_amount, missing merchant 400 invalid_request', async () => {
    const card = await alice.client.wallet.createCard({ limit: '5', currency: 'usd' });
    await expectApiError(world.sim.chargeCard('card_nope', { amount: '1', merchant: 'A' }), 404, 'not_found');
    await expectApiError(world.sim.chargeCard(card.card_id, { amount: '1.001', merchant: 'A' }), 400, 'invalid_amount', 'amount');
    await expectApiError(world.sim.chargeCard(card.card_id, { amount: '1' } as never), 400, 'invalid_request', 'merchant');
  });
});
