/**
 * The world the testing examples share: a shop and a buyer with money, built once per test
 * process by `loadFixture` and handed out fresh to every test.
 * In your own project import from 'agent-services/testing' instead of '../../src/testing/index.js'.
 */
import { createTestWorld } from '../../src/testing/index.js';

/** An EVM address outside the service (an on-chain send to it confirms after the chain's delay). */
export const OUTSIDE_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

/** Builds the shop world: the function itself is the fixture's identity, so keep it module-level. */
export async function shopWorld() {
  const world = await createTestWorld({
    seed: 7,
    agents: {
      shop: { display_name: 'Tea Shop', balances: { usd: '0' } },
      buyer: { display_name: 'Buyer', balances: { usd: '50', usdc: '20' } },
    },
  });
  await world.agents.shop.memory.create({ content: 'Green tea costs 4.00 usd', metadata: { kind: 'price' } });
  return world;
}
