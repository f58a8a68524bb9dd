import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { HdCustodyKeys } from '../../../src/providers/custody/hd-custody-keys.js';
import { expectApiError } from '../../support/transports.js';
import { advanceUntil, CHAIN_STORES, chainWorld, eventually, expectCovered, TEST_MNEMONIC, type ChainWorld } from './chain-world.js';
import { startEdrServer, type EdrServer } from './edr-server.js';

const hot = new HdCustodyKeys(TEST_MNEMONIC).addresses(0).evm as Hex;

describe.each(CHAIN_STORES)('ethereum over JSON-RPC (a Hardhat EDR node the test starts), world in %s', (store) => {
  let node: EdrServer;
  let world: ChainWorld;
  beforeAll(async () => {
    node = await startEdrServer();
    // The operator's hot wallet: gas money and usdc float.
    await node.giveGas(hot);
    await node.sendUsdc(hot, 1_000_000_000n);
    world = await chainWorld({ wallet: { chains: { ethereum: node.url }, usdc: { ethereum: node.usdc }, confirmations: { ethereum: 3 } } }, store);
    // Answers once the chains have started (cursor set at the head, nonces read).
    await world.sim.chainHoldings({ network: 'ethereum' });
  }, 60_000);
  afterAll(async () => {
    await world?.runtime.close();
    await node?.close();
  });

  it('sees ETH and usdc deposits pending, credits them once at the depth with from, network and reference', async () => {
    const alice = await world.agent('alice');
    const ethHash = await node.sendEth(alice.address as Hex, 10n ** 18n);
    const usdcHash = await node.sendUsdc(alice.address as Hex, 7_500_000n);
    await eventually(async () => {
      const records = (await alice.client.wallet.listTransactions({ direction: 'in' })).transactions;
      expect(records.map((record) => [record.reference, record.status]).sort()).toEqual(
        [
          [ethHash, 'pending'],
          [usdcHash, 'pending'],
        ].sort(),
      );
      expect(records.every((record) => record.network === 'ethereum' && /^0x[0-9a-fA-F]{40}$/.test(record.from))).toBe(true);
    });
    expect((await alice.client.wallet.getBalance()).crypto.eth).toBe('0.000000000000000000');
    // The usdc transfer's block has 1 confirmation; two more blocks make 3.
    await node.rpc('evm_mine');
    await node.rpc('evm_mine');
    await eventually(async () => {
      const balance = (await alice.client.wallet.getBalance()).crypto;
      expect([balance.eth, balance.usdc]).toEqual(['1.000000000000000000', '7.500000']);
    });
    await node.rpc('evm_mine');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await alice.client.wallet.getBalance()).crypto.usdc).toBe('7.500000');
    await expectCovered(world.sim, 'ethereum');
  });

  it('never credits a deposit a reorg removed before its depth (evm_snapshot / evm_revert)', async () => {
    const bob = await world.agent('bob');
    const snapshot = await node.rpc('evm_snapshot');
    const hash = await node.sendUsdc(bob.address as Hex, 4_000_000n);
    await eventually(async () => expect((await bob.client.wallet.listTransactions({})).transactions[0]).toMatchObject({ reference: hash, status: 'pending' }));
    await node.rpc('evm_revert', [snapshot]);
    for (let i = 0; i < 4; i++) await node.rpc('evm_mine');
    await eventually(async () => expect((await bob.client.wallet.listTransactions({})).transactions[0]).toMatchObject({ reference: hash, status: 'failed' }));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await bob.client.wallet.getBalance()).crypto.usdc).toBe('0.000000');
    expect(await node.usdcBalance(bob.address as Hex)).toBe(0n);
  });

  it('sends usdc and eth that arrive on chain exactly, confirmed at the depth; a send above balance broadcasts nothing', async () => {
    const carol = await world.agent('carol');
    await node.sendUsdc(carol.address as Hex, 20_000_000n);
    await node.sendEth(carol.address as Hex, 10n ** 18n);
    await node.rpc('evm_mine');
    await node.rpc('evm_mine');
    await eventually(async () => expect((await carol.client.wallet.getBalance()).crypto.usdc).toBe('20.000000'));
    const target = '0x000000000000000000000000000000000000dEaD' as Hex;
    const usdcBefore = await node.usdcBalance(target);
    const ethBefore = await node.ethBalance(target);
    await expectApiError(carol.client.wallet.send({ to: target, amount: '100', asset: 'usdc', network: 'ethereum' }), 402, 'insufficient_funds');
    const usdc = await carol.client.wallet.send({ to: target, amount: '12.25', asset: 'usdc', network: 'ethereum' });
    const eth = await carol.client.wallet.send({ to: target, amount: '0.1', asset: 'eth', network: 'ethereum' });
    await eventually(async () => expect(await node.usdcBalance(target)).toBe(usdcBefore + 12_250_000n));
    expect(await node.ethBalance(target)).toBe(ethBefore + 10n ** 17n);
    expect((await carol.client.wallet.getTransaction(usdc.transaction_id)).status).toBe('pending');
    await node.rpc('evm_mine');
    await node.rpc('evm_mine');
    await advanceUntil(world.sim, 12, async () => {
      expect((await carol.client.wallet.getTransaction(usdc.transaction_id)).status).toBe('confirmed');
      expect((await carol.client.wallet.getTransaction(eth.transaction_id)).status).toBe('confirmed');
    });
    expect((await carol.client.wallet.getBalance()).crypto.usdc).toBe('7.250000');
    expect(await node.usdcBalance(target)).toBe(usdcBefore + 12_250_000n);
    await expectCovered(world.sim, 'ethereum');
  });

  it('refuses control-plane deposits on an RPC network', async () => {
    await world.agent('dave');
    await expectApiError(world.sim.chainDeposit({ network: 'ethereum', asset: 'eth', amount: '1', to: 'dave' }), 400, 'invalid_request', 'network');
  });

  it('answers the same custody address for an agent that the mnemonic derives at index >= 1', async () => {
    const erin = await world.agent('erin');
    const keys = new HdCustodyKeys(TEST_MNEMONIC);
    const indexes = [1, 2, 3, 4, 5, 6].filter((index) => keys.addresses(index).evm === erin.address);
    expect(indexes).toHaveLength(1);
  });
});
