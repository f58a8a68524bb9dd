/**
 * agent-services/testing with vitest: `npx vitest run` picks this up when it matches your
 * `include` (here test/examples/testing-examples.test.ts imports it).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadFixture, type TestWorld } from '../../src/testing/index.js';
import { OUTSIDE_ADDRESS, shopWorld } from './shop-fixture.js';

describe('tea shop (vitest)', () => {
  let world: TestWorld<'shop' | 'buyer'>;
  afterEach(() => world.close());

  it('a purchase moves money from the buyer to the shop', async () => {
    world = await loadFixture(shopWorld);
    await world.agents.buyer.wallet.send({ to: 'shop', amount: '4.00', asset: 'usd', memo: 'green tea' });
    expect((await world.agents.shop.wallet.getBalance()).fiat.usd).toBe('4.00');
    expect((await world.agents.buyer.wallet.getBalance()).fiat.usd).toBe('46.00');
  });

  it('every test starts from the fixture, untouched by the one before', async () => {
    world = await loadFixture(shopWorld);
    expect((await world.agents.shop.wallet.getBalance()).fiat.usd).toBe('0.00');
    const found = await world.agents.shop.memory.search({ query: 'price of green tea' });
    expect(found.memories[0]?.content).toBe('Green tea costs 4.00 usd');
  });

  it('waitFor moves the clock until the chain confirms a send', async () => {
    world = await loadFixture(shopWorld);
    const sent = await world.agents.buyer.wallet.send({ to: OUTSIDE_ADDRESS, amount: '5', asset: 'usdc', network: 'base' });
    const event = await world.waitFor('wallet.transaction.updated', (candidate) => candidate.data.transaction_id === sent.transaction_id);
    expect(event.data.status).toBe('confirmed');
  });
});
