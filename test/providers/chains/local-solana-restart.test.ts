// A world kept in a file (--data) outlives its local solana chain: after a restart the chain is a
// new one, starting again at slot 0, and its deposits are still seen and credited.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { advanceUntil, chainWorld } from './chain-world.js';

describe('local solana across a restart of a world kept in a file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'solana-restart-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("credits deposits of the new chain a restart makes (its slots start again at 0; the stored cursor is the old chain's)", async () => {
    const options = { data: join(dir, 'world.db'), wallet: { chains: { solana: 'local' } } } as const;
    let world = await chainWorld(options);
    const alice = await world.agent('alice');
    await world.sim.chainDeposit({ network: 'solana', asset: 'sol', amount: '1', to: 'alice' });
    await advanceUntil(world.sim, 1, async () => expect((await alice.client.wallet.getBalance()).crypto.sol).toBe('1.000000000'));
    // A minute of service time passes before the restart.
    await world.sim.advanceClock({ seconds: 60 });
    await world.runtime.close();

    world = await chainWorld(options);
    await world.sim.chainHoldings({ network: 'solana' });
    const again = world.runtime.agent(alice.key);
    await world.sim.chainDeposit({ network: 'solana', asset: 'sol', amount: '2', to: 'alice' });
    await advanceUntil(world.sim, 1, async () => expect((await again.wallet.getBalance()).crypto.sol).toBe('3.000000000'));
    await world.runtime.close();
  });
});
