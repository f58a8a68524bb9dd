/**
 * Marketplace: every agent sells one good and buys from the others. Deals are negotiated by email
 * (request for quote, offers and counter-offers in one thread), invoiced with the wallet and paid
 * with a wallet send naming the invoice. Money only moves between agents, so the usd held in
 * wallets never changes and nobody's balance goes below zero.
 *
 *   agent-services scenario run examples/scenarios/marketplace.ts --agents 1000 --duration 24h
 *
 * In your own project import everything from 'agent-services' (here the scenario modules take
 * defineScenario from its own light module, so loading them does not transpile the whole source).
 */
import { defineScenario } from '../../src/scenario/define-scenario.js';
import { traderPolicy, traderState } from './trader.js';
import { moneyIsConserved, type MoneyWorld } from './money.js';

const trade = traderPolicy();

export default defineScenario({
  name: 'marketplace',
  description: 'Agents sell goods to each other: quotes and counter-offers by email, invoices and book transfers in usd.',
  agents: 50,
  duration: '24h',
  step: '10m',
  agent: (index, { random }) => ({
    name: `trader-${index}`,
    display_name: `Trader ${index}`,
    balances: { usd: String(100 + random.int(400)) },
    state: traderState(random),
    policy: trade,
  }),
  world: { state: (): MoneyWorld => ({ balanceChecks: false }) },
  invariants: {
    'money is conserved': moneyIsConserved,
  },
});
