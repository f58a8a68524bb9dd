/**
 * The money invariant of the marketplace scenarios, in exact decimals: per asset, what was funded
 * into the service equals what wallets hold plus fees collected plus what was sent out; nothing
 * is funded after the start (every payment moves money that was already there); and, when
 * `balanceChecks` is on, every agent's balance is read and none is negative and they add up to
 * what the ledger says is held.
 * In your own project import from 'agent-services' instead of '../../src/index.js'.
 */
import type { WorldContext } from '../../src/index.js';

/** The world state the invariant keeps. */
export interface MoneyWorld {
  /** Read every agent's balance at every check (costs one call per agent per step). */
  balanceChecks: boolean;
  /** Asset → funded in at the first check. */
  fundedAtStart?: Record<string, string>;
}

const PLACES = 18;

/** A decimal string as an integer of 10^-18 units. */
function units(amount: string): bigint {
  const [whole, fraction = ''] = amount.split('.');
  return BigInt(whole!) * 10n ** BigInt(PLACES) + BigInt(fraction.padEnd(PLACES, '0'));
}

/** Checks conservation; answers what is wrong, or nothing. */
export async function moneyIsConserved(context: WorldContext<MoneyWorld>): Promise<string | undefined> {
  const { assets } = await context.sim.walletLedger();
  const world = context.world;
  world.fundedAtStart ??= Object.fromEntries(Object.entries(assets).map(([asset, totals]) => [asset, totals.funded_in]));
  for (const [asset, totals] of Object.entries(assets)) {
    const accounted = units(totals.held) + units(totals.fees_collected) + units(totals.sent_out);
    if (units(totals.funded_in) !== accounted) {
      return `${asset}: funded in ${totals.funded_in} but held ${totals.held} + fees ${totals.fees_collected} + sent out ${totals.sent_out}`;
    }
    if (totals.funded_in !== world.fundedAtStart[asset]) return `${asset}: funded in moved from ${world.fundedAtStart[asset]} to ${totals.funded_in} although nobody was funded`;
  }
  if (!world.balanceChecks) return undefined;
  const sums: Record<string, bigint> = {};
  for (const agent of context.directory) {
    const balance = await context.agents[agent.name]!.wallet.getBalance();
    for (const [asset, amount] of Object.entries({ ...balance.fiat, ...balance.crypto })) {
      if (amount.startsWith('-')) return `${agent.name} holds ${amount} ${asset}`;
      sums[asset] = (sums[asset] ?? 0n) + units(amount);
    }
  }
  for (const [asset, totals] of Object.entries(assets)) {
    if ((sums[asset] ?? 0n) !== units(totals.held)) return `${asset}: the agents' balances add up to a different amount than the ledger's held ${totals.held}`;
  }
  return undefined;
}
