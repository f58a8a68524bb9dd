// A property over random deposits and sends on a local chain: holdings never fall below what the
// ledger owes, and once everything settled the ledger equals what the chain shows.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceUntil, chainWorld, OUTSIDE, type ChainWorld } from './chain-world.js';

type Step = { kind: 'deposit'; agent: number; units: number } | { kind: 'send'; agent: number; units: number };

describe('local base: random deposits and sends', () => {
  let world: ChainWorld;
  let agents: Array<Awaited<ReturnType<ChainWorld['agent']>>>;
  beforeAll(async () => {
    world = await chainWorld({ wallet: { chains: { base: 'local' } } });
    agents = [await world.agent('ann'), await world.agent('ben'), await world.agent('cat')];
    await world.sim.chainHoldings({ network: 'base' });
  }, 60_000);
  afterAll(async () => {
    await world.runtime.close();
  });

  it('keeps holdings >= ledger and, settled, the ledger equal to the chain', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({ kind: fc.constant('deposit' as const), agent: fc.integer({ min: 0, max: 2 }), units: fc.integer({ min: 1, max: 50 }) }),
            fc.record({ kind: fc.constant('send' as const), agent: fc.integer({ min: 0, max: 2 }), units: fc.integer({ min: 1, max: 50 }) }),
          ),
          { minLength: 1, maxLength: 8 },
        ),
        async (steps: Step[]) => {
          run++;
          const start = await world.sim.chainHoldings({ network: 'base' });
          let sentOut = 0;
          let sends = 0;
          const references: Array<[number, string]> = [];
          let deposited = 0;
          for (const step of steps) {
            const agent = agents[step.agent]!;
            if (step.kind === 'deposit') {
              const deposit = await world.sim.chainDeposit({ network: 'base', asset: 'usdc', amount: String(step.units), to: agent.address });
              references.push([step.agent, deposit.reference]);
              deposited += step.units;
            } else {
              const answer = await agent.client.wallet.send({ to: OUTSIDE, amount: String(step.units), asset: 'usdc', network: 'base' }).catch((error: { status?: number }) => error);
              if ((answer as { status?: number }).status === 402) continue;
              sentOut += step.units;
              sends++;
            }
            const now = await world.sim.chainHoldings({ network: 'base' });
            expect(Number(now.holdings.usdc)).toBeGreaterThanOrEqual(Number(now.ledger.usdc));
          }
          // Settle everything: every record of every agent out of pending.
          await advanceUntil(world.sim, 2, async () => {
            for (const [index, reference] of references) {
              const records = (await agents[index]!.client.wallet.listTransactions({ limit: 100, direction: 'in' })).transactions;
              expect(records.find((record) => record.reference === reference)?.status).toBe('confirmed');
            }
            for (const agent of agents) {
              const pending = (await agent.client.wallet.listTransactions({ limit: 100 })).transactions.filter((record) => record.status === 'pending');
              expect(pending).toEqual([]);
            }
          });
          const end = await world.sim.chainHoldings({ network: 'base' });
          // Custody moved exactly what the ledger says: deposits in, sends out (fees stay in custody).
          expect(Math.round((Number(end.holdings.usdc) - Number(start.holdings.usdc)) * 1e6)).toBe((deposited - sentOut) * 1e6);
          const owed = Math.round((Number(end.ledger.usdc) - Number(start.ledger.usdc)) * 1e6);
          // What agents are owed moved by deposits minus sends and their 0.01 usdc base fees.
          expect(owed).toBe((deposited - sentOut) * 1e6 - sends * 10_000);
          let balances = 0;
          for (const agent of agents) balances += Number((await agent.client.wallet.getBalance()).crypto.usdc);
          expect(Math.round(balances * 1e6)).toBe(Math.round(Number(end.ledger.usdc) * 1e6));
        },
      ),
      { numRuns: 6, seed: 26 },
    );
    expect(run).toBeGreaterThan(0);
  }, 300_000);
});
