// EVM sweeps stepped by two pollers of one world at once (two processes on one database): each step
// is taken by one of them, so the hot wallet sends an address its gas money once, and the agent's
// usdc moves once. A faucet deposit mined right after a sweep emptied its receiver still arrives.
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvmNetwork } from '../../../src/providers/chains/evm/evm-network.js';
import { EvmSweeper } from '../../../src/providers/chains/evm/evm-sweeper.js';
import { HdCustodyKeys } from '../../../src/providers/custody/hd-custody-keys.js';
import { MemoryStore } from '../../../src/providers/store/memory-store.js';
import { TEST_MNEMONIC } from './chain-world.js';

const keys = new HdCustodyKeys(TEST_MNEMONIC);
const BLOCK_MS = 2000;

describe('EVM sweeps (local base)', () => {
  let network: EvmNetwork;
  let now = 0;
  beforeAll(async () => {
    network = new EvmNetwork({ network: 'base', connection: { kind: 'local', nowMs: 0, blockMs: BLOCK_MS }, usdc: null, confirmations: 1, hot: keys.evmAccount(0) });
    await network.ready;
  });
  afterAll(async () => {
    await network.close();
  });

  const nextBlock = async () => {
    now += BLOCK_MS;
    await network.catchUp(now);
  };

  it('sends the gas money and the sweep once when two pollers step a usdc sweep at once', async () => {
    const store = new MemoryStore();
    const agent = keys.evmAccount(3).address;
    await network.faucetDeposit('usdc', 7_000_000n, agent);
    await nextBlock();
    const [one, two] = [new EvmSweeper(network, store, keys), new EvmSweeper(network, store, keys)];
    await one.add('base:d:usdc', 3, 'usdc', 7_000_000n);
    const broadcast = network.broadcast.bind(network);
    const sent: Hex[] = [];
    network.broadcast = async (raw) => {
      sent.push(raw);
      return broadcast(raw);
    };
    try {
      // The gas money: one of the two sends it, the other finds the sweep a step on.
      await Promise.all([one.run(), two.run()]);
      expect(sent).toHaveLength(1);
      await nextBlock();
      // The token transfer signed by the agent's key: once.
      await Promise.all([one.run(), two.run()]);
      expect(sent).toHaveLength(2);
      await nextBlock();
      await Promise.all([one.run(), two.run()]);
    } finally {
      network.broadcast = broadcast;
    }
    expect(await store.view.all('chain_sweeps')).toEqual([]);
    expect((await network.holdings([agent])).usdc).toBe(0n);
  });

  it('a faucet deposit arrives when a sweep ahead of it in its block empties the receiver (its gas is not an estimate made before)', async () => {
    const agent = keys.evmAccount(4);
    await network.faucetDeposit('usdc', 5_000_000n, agent.address);
    await network.faucetDeposit('eth', 10n ** 16n, agent.address);
    await nextBlock();
    // Sent while the receiver holds usdc, then outbid by the agent's sweep of all of it.
    const deposit = await network.faucetDeposit('usdc', 3_000_000n, agent.address);
    const sweep = await network.sign(await network.nonceOf(agent.address), 'usdc', network.hotAddress, 5_000_000n, agent);
    await network.broadcast(sweep.raw);
    await nextBlock();
    const [swept, arrived] = [await network.receipt(sweep.hash), await network.receipt(deposit)];
    expect(swept).toMatchObject({ success: true });
    expect(arrived).toMatchObject({ success: true, block: swept!.block });
    expect((await network.holdings([agent.address])).usdc).toBe(3_000_000n);
  });
});
