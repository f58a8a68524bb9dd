/** Shared set-up of the real-chain tests: a runtime whose networks run on local or RPC chains. */
import { expect, vi } from 'vitest';
import { createRuntime, type AgentClient, type Runtime, type RuntimeOptions, type SimClient } from '../../../src/index.js';
import { freshDatabase, postgresSkipReason } from '../../support/postgres.js';

/** The mnemonic of Hardhat's default accounts: public knowledge, right for tests only. */
export const TEST_MNEMONIC = 'test test test test test test test test test test test junk';
/** An outside address nobody in the service owns. */
export const OUTSIDE = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';

export interface ChainWorld {
  runtime: Runtime;
  sim: SimClient;
  agent(name: string): Promise<{ client: AgentClient; address: string; handle: string; key: string }>;
}

// The pollers run on real timers, so on a busy machine a deposit or a send takes longer to be seen;
// the waits below are bounded generously, and every test of a file importing this gets the time to
// reach those bounds (a wait that ends by the test's own timeout first would only say "slow").
vi.setConfig({ testTimeout: 180_000 });

/** Where a chain test's world is kept. */
export type ChainStore = 'memory' | 'postgres';
/** The stores the chain API tests run over: memory, and PostgreSQL where the run started a server (not the fast loop). */
export const CHAIN_STORES: readonly ChainStore[] = postgresSkipReason() === null ? ['memory', 'postgres'] : ['memory'];

/** A simulated-clock runtime with the given chains and the test mnemonic, in memory or in a fresh PostgreSQL database. */
export async function chainWorld(options: RuntimeOptions, store: ChainStore = 'memory'): Promise<ChainWorld> {
  const database = store === 'postgres' ? { database: await freshDatabase() } : {};
  const runtime = await createRuntime({ seed: 1, ...options, ...database, wallet: { custodyMnemonic: TEST_MNEMONIC, ...options.wallet } });
  const sim = runtime.simClient();
  return {
    runtime,
    sim,
    agent: async (name) => {
      const created = await sim.createAgent({ name });
      const client = runtime.agent(created.api_key);
      const address = (await client.wallet.getAddresses()).addresses[0]!.address;
      return { client, address, handle: created.handle, key: created.api_key };
    },
  };
}

/** Retries `check` (real time; the pollers run on real timers) until it passes or `ms` ran out. */
export async function eventually<T>(check: () => Promise<T>, ms = 60_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** Advances the simulated clock and waits until `check` passes, advancing again while it does not. */
export async function advanceUntil<T>(sim: SimClient, seconds: number, check: () => Promise<T>, ms = 120_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    await sim.advanceClock({ seconds });
    try {
      return await eventually(check, 300);
    } catch (error) {
      if (Date.now() > until) throw error;
    }
  }
}

/** Asserts holdings >= ledger for every asset of a network. */
export async function expectCovered(sim: SimClient, network: 'ethereum' | 'base'): Promise<void> {
  const answer = await sim.chainHoldings({ network });
  for (const [asset, owed] of Object.entries(answer.ledger)) expect(Number(answer.holdings[asset])).toBeGreaterThanOrEqual(Number(owed));
}
