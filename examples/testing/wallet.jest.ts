// The globals' types for this repository, where jest is not installed; in a jest project
// `@types/jest` gives them and this line goes.
/// <reference types="vitest/globals" />
/**
 * agent-services/testing with jest's globals (describe, test, expect, beforeEach, afterEach): no
 * runner import. It runs as it is under jest (see docs/testing.md for the ESM configuration) and
 * under vitest with jest-compatible globals (test/examples/testing-examples.test.ts does that).
 */
import { loadFixture, type TestWorld } from '../../src/testing/index.js';
import { shopWorld } from './shop-fixture.js';

describe('tea shop (jest style)', () => {
  let world: TestWorld<'shop' | 'buyer'>;
  beforeEach(async () => {
    world = await loadFixture(shopWorld);
  });
  afterEach(() => world.close());

  test('the buyer cannot spend more than it holds', async () => {
    await expect(world.agents.buyer.wallet.send({ to: 'shop', amount: '500', asset: 'usd' })).rejects.toMatchObject({ status: 402, code: 'insufficient_funds' });
    expect((await world.agents.buyer.wallet.getBalance()).fiat.usd).toBe('50.00');
  });

  test('the shop emails a receipt that lands in the buyer inbox', async () => {
    await world.agents.shop.email.send({ to: [world.created.buyer.email], subject: 'Receipt', text: 'Thank you' });
    const inbox = await world.agents.buyer.email.list();
    expect(inbox.messages.map((message) => message.subject)).toEqual(['Receipt']);
  });
});
