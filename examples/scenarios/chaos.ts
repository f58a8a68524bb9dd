/**
 * Chaos: the marketplace under payment faults. After every sale the seller pays an outside
 * supplier for new stock in usdc on chain; faults make some of those payments fail (one at a
 * time, and hour-long outages of the supplier's address), and sellers send failed payments again.
 * The money invariant is checked after every step with every agent's balance read: per asset,
 * funded = held + fees + sent out, nothing is funded during the run, no balance is negative and
 * the balances add up to what the ledger holds.
 *
 *   agent-services scenario run examples/scenarios/chaos.ts --seed 7 --report chaos.html
 *
 * In your own project import everything from 'agent-services' (here the scenario modules take
 * defineScenario from its own light module, so loading them does not transpile the whole source).
 */
import { defineScenario } from '../../src/scenario/define-scenario.js';
import type { WorldContext } from '../../src/index.js';
import { moneyIsConserved, type MoneyWorld } from './money.js';
import { clearPaymentFaults, failNextPayments, failPaymentsTo } from './payment-faults.js';
import { traderPolicy, traderState } from './trader.js';

/** The supplier every seller restocks from: an EVM address outside the service. */
const SUPPLIER = '0x52908400098527886E0F7030069857D2E4169EE7';

interface ChaosWorld extends MoneyWorld {
  /** Service time (ms) the current supplier outage ends, or null. */
  outageUntil: number | null;
}

const trade = traderPolicy({ supplier: SUPPLIER });

async function faults(context: WorldContext<ChaosWorld>): Promise<void> {
  const { sim, random, world } = context;
  if (world.outageUntil !== null && context.nowMs >= world.outageUntil) {
    await clearPaymentFaults(sim);
    world.outageUntil = null;
  }
  if (world.outageUntil === null && random.chance(1 / 36)) {
    await failPaymentsTo(sim, SUPPLIER, 'supplier outage');
    world.outageUntil = context.nowMs + 3_600_000;
  }
  if (random.chance(0.3)) await failNextPayments(sim, 1 + random.int(3), 'chain congestion');
}

export default defineScenario({
  name: 'chaos',
  description: 'The marketplace with on-chain restocking under payment faults; the money invariant, balances included, after every step.',
  agents: 30,
  duration: '24h',
  step: '10m',
  agent: (index, { random }) => ({
    name: `trader-${index}`,
    display_name: `Trader ${index}`,
    balances: { usd: String(100 + random.int(400)), usdc: String(50 + random.int(100)) },
    state: traderState(random),
    policy: trade,
  }),
  world: {
    state: (): ChaosWorld => ({ balanceChecks: true, outageUntil: null }),
    step: faults,
  },
  invariants: {
    'money is conserved': moneyIsConserved,
  },
});
