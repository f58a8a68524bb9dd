/**
 * agent-services/testing with node:test. Run it with tsx's loader:
 *   node --import tsx --test examples/testing/wallet.node-test.ts
 * (or compile it and run `node --test`; it needs nothing else).
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { loadFixture, type TestWorld } from '../../src/testing/index.js';
import { OUTSIDE_ADDRESS, shopWorld } from './shop-fixture.js';

describe('tea shop (node:test)', () => {
  let world: TestWorld<'shop' | 'buyer'>;
  afterEach(() => world.close());

  test('a purchase moves money from the buyer to the shop', async () => {
    world = await loadFixture(shopWorld);
    await world.agents.buyer.wallet.send({ to: 'shop', amount: '4.00', asset: 'usd' });
    assert.equal((await world.agents.shop.wallet.getBalance()).fiat.usd, '4.00');
  });

  test('the next test sees the fixture again', async () => {
    world = await loadFixture(shopWorld);
    assert.equal((await world.agents.shop.wallet.getBalance()).fiat.usd, '0.00');
  });

  test('waitFor answers the confirmation and fails readably when nothing comes', async () => {
    world = await loadFixture(shopWorld);
    const sent = await world.agents.buyer.wallet.send({ to: OUTSIDE_ADDRESS, amount: '5', asset: 'usdc', network: 'base' });
    const event = await world.waitFor('wallet.transaction.updated', (candidate) => candidate.data.transaction_id === sent.transaction_id);
    assert.equal(event.data.status, 'confirmed');
    await assert.rejects(world.waitFor('email.received', undefined, { maxSeconds: 10 }), /no matching event within 10 s/);
  });
});
