/**
 * Spending limits under many agents: every shopper's operator allows it 100 usd a day, to two
 * merchants only (a policy: DECISIONS.md, Policies). Shoppers try to buy all day long, several
 * purchases at once, now and then from a merchant outside their list; the service refuses what
 * breaks the policy with 403 policy_violation. After every step the invariant reads each
 * shopper's history: no UTC day of service time holds more than 100 usd of accepted purchases,
 * and none went to another recipient.
 *
 *   agent-services scenario run examples/scenarios/spending-limits.ts --agents 50 --seed 3
 *
 * In your own project import everything from 'agent-services'.
 */
import { defineScenario } from '../../src/scenario/define-scenario.js';
import type { PolicyContext, WorldContext } from '../../src/index.js';

/** The two merchants every shopper may pay, and one it may not. */
const MERCHANTS = ['merchant-a', 'merchant-b'] as const;
const OTHER_SHOP = 'merchant-c';
const SHOPS = [...MERCHANTS, OTHER_SHOP];
/** The daily limit of every shopper, in usd cents. */
const DAILY_CENTS = 10_000n;

interface Shopper {
  /** Purchases accepted, and refused by the policy. */
  bought: number;
  refused: number;
}

interface LimitsWorld {
  /** `policy.violated` events seen. */
  refusals: number;
}

/** A shopper's step: 0 to 3 purchases of 5 to 40 usd at once, one in ten at the shop outside its list. */
async function shop({ client, random, state }: PolicyContext<Shopper>): Promise<void> {
  const purchases = Array.from({ length: random.int(4) }, () => ({
    to: random.chance(0.1) ? OTHER_SHOP : random.pick(MERCHANTS),
    amount: `${random.between(5, 40)}.${String(random.int(100)).padStart(2, '0')}`,
  }));
  const outcomes = await Promise.allSettled(purchases.map((purchase) => client.wallet.send({ ...purchase, asset: 'usd', memo: 'order' })));
  for (const outcome of outcomes) {
    if (outcome.status === 'fulfilled') state.bought++;
    else if ((outcome.reason as { code?: string }).code === 'policy_violation') state.refused++;
    else throw outcome.reason;
  }
}

/** Cents of a 2-place decimal string. */
const cents = (amount: string) => BigInt(amount.replace('.', ''));

/** Every shopper: no day over the limit, no purchase outside the two merchants. */
async function limitsHold(context: WorldContext<LimitsWorld>): Promise<string | undefined> {
  context.world.refusals += context.events.filter((event) => event.type === 'policy.violated').length;
  for (const agent of context.directory) {
    if (SHOPS.includes(agent.name)) continue;
    const perDay = new Map<string, bigint>();
    let cursor: string | undefined;
    do {
      const page = await context.agents[agent.name]!.wallet.listTransactions({ asset: 'usd', direction: 'out', limit: 100, ...(cursor ? { cursor } : {}) });
      for (const record of page.transactions) {
        if (record.status === 'failed') continue;
        if (!MERCHANTS.includes(record.to as (typeof MERCHANTS)[number])) return `${agent.name} paid ${record.amount} usd to ${record.to}, outside its policy`;
        const day = record.created_at.slice(0, 10);
        perDay.set(day, (perDay.get(day) ?? 0n) + cents(record.amount));
      }
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    for (const [day, spent] of perDay) if (spent > DAILY_CENTS) return `${agent.name} spent ${spent} cents on ${day}, over its daily limit`;
  }
  return undefined;
}

export default defineScenario({
  name: 'spending-limits',
  description: 'Shoppers limited to 100 usd a day at two merchants try to spend more, concurrently; the policy holds every day.',
  agents: 40,
  duration: '48h',
  step: '20m',
  agent: (index) =>
    index < SHOPS.length
      ? { name: SHOPS[index]!, display_name: `Shop ${index}`, state: { bought: 0, refused: 0 }, policy: async () => {} }
      : { name: `shopper-${index}`, display_name: `Shopper ${index}`, balances: { usd: '1000' }, state: { bought: 0, refused: 0 }, policy: shop },
  world: {
    state: (): LimitsWorld => ({ refusals: 0 }),
    async setup(context) {
      // The operator's guardrails, set through the control plane before the first step.
      for (const agent of context.directory) {
        if (SHOPS.includes(agent.name)) continue;
        await context.sim.setAgentPolicy(agent.name, { wallet: { per_day: { usd: '100.00' }, recipients: [...MERCHANTS] } });
      }
    },
  },
  invariants: {
    'spending limits hold': limitsHold,
  },
});
