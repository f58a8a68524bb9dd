import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { HdCustodyKeys } from '../../../src/providers/custody/hd-custody-keys.js';
import { advanceUntil, CHAIN_STORES, chainWorld, eventually, expectCovered, TEST_MNEMONIC, type ChainWorld } from './chain-world.js';
import { startEdrServer, type EdrServer } from './edr-server.js';

const hot = new HdCustodyKeys(TEST_MNEMONIC).addresses(0).evm as Hex;

describe.each(CHAIN_STORES)('sweeps: deposits move to the hot wallet, which pays every send, world in %s', (store) => {
  let node: EdrServer;
  let world: ChainWorld;
  beforeAll(async () => {
    node = await startEdrServer();
    // Gas money only: the hot wallet holds no usdc until a deposit is swept to it.
    await node.giveGas(hot);
    world = await chainWorld({ wallet: { chains: { base: node.url }, usdc: { base: node.usdc }, confirmations: { base: 1 } } }, store);
    await world.sim.chainHoldings({ network: 'base' });
  }, 60_000);
  afterAll(async () => {
    await world?.runtime.close();
    await node?.close();
  });

  it('sweeps usdc (after sending the address its gas) and ETH to the hot wallet; a usdc send then arrives', async () => {
    const alice = await world.agent('alice');
    const address = alice.address as Hex;
    await node.sendUsdc(address, 20_000_000n);
    await node.sendEth(address, 10n ** 18n);
    await eventually(async () => expect((await alice.client.wallet.getBalance()).crypto.usdc).toBe('20.000000'));
    await eventually(async () => {
      expect(await node.usdcBalance(hot)).toBe(20_000_000n);
      expect(await node.usdcBalance(address)).toBe(0n);
      expect(await node.ethBalance(address)).toBeLessThan(10n ** 15n);
    });
    expect((await alice.client.wallet.getBalance()).crypto.usdc).toBe('20.000000');
    await expectCovered(world.sim, 'base');
    const target = '0x000000000000000000000000000000000000dEaD' as Hex;
    const before = await node.usdcBalance(target);
    const sent = await alice.client.wallet.send({ to: target, amount: '5', asset: 'usdc', network: 'base' });
    await eventually(async () => expect(await node.usdcBalance(target)).toBe(before + 5_000_000n));
    await advanceUntil(world.sim, 2, async () => expect((await alice.client.wallet.getTransaction(sent.transaction_id)).status).toBe('confirmed'));
    await expectCovered(world.sim, 'base');
  });
});
