// Sends on solana over JSON-RPC, against the scripted node of solana-fork-node.ts (it takes the
// signed bytes and lands them in its next block; it executes nothing): a send is confirmed at the
// depth; one the cluster never took fails as dropped once the chain's block height is past its
// blockhash's last valid height, with the amount returned and the fee kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceUntil, CHAIN_STORES, eventually, type ChainWorld } from './chain-world.js';
import { forkNodeWorld, OUTSIDE_SENDER, startForkNode, type ForkNode } from './solana-fork-node.js';

describe.each(CHAIN_STORES)('solana sends over JSON-RPC (a scripted node), world in %s', (store) => {
  let node: ForkNode;
  let world: ChainWorld;
  beforeAll(async () => {
    node = await startForkNode();
    // Slots run ahead of block heights on a cluster (skipped slots make no block): 400 slots, one block.
    node.block([], node.head() + 400);
    world = await forkNodeWorld(node, store);
  }, 60_000);
  afterAll(async () => {
    await world?.runtime.close();
    await node?.close();
  });

  it('confirms a send at the depth, and fails one never taken once the block height passed its blockhash (amount back, fee kept)', async () => {
    const erin = await world.agent('erin');
    const address = (await erin.client.wallet.getAddresses()).addresses.find((entry) => entry.network === 'solana')!.address;
    const deposit = node.solTransfer(address, 2_000_000_000);
    node.block([deposit.transaction]);
    node.block();
    node.block();
    await eventually(async () => expect((await erin.client.wallet.getBalance()).crypto.sol).toBe('2.000000000'));

    node.accepting = true;
    const sent = await erin.client.wallet.send({ to: OUTSIDE_SENDER, amount: '0.5', asset: 'sol' });
    const { reference } = await erin.client.wallet.getTransaction(sent.transaction_id);
    // Broadcast after the commit.
    await eventually(async () => expect(node.sent).toContain(reference));
    // Checked before it is in a block: the slot is far past the blockhash's last valid height, the block height is not.
    await world.sim.advanceClock({ seconds: 1 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await erin.client.wallet.getTransaction(sent.transaction_id)).status).toBe('pending');
    node.block();
    node.block();
    node.block();
    await advanceUntil(world.sim, 1, async () => expect((await erin.client.wallet.getTransaction(sent.transaction_id)).status).toBe('confirmed'));

    node.accepting = false;
    const lost = await erin.client.wallet.send({ to: OUTSIDE_SENDER, amount: '0.25', asset: 'sol' });
    await world.sim.advanceClock({ seconds: 1 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await erin.client.wallet.getTransaction(lost.transaction_id)).status).toBe('pending');
    for (let i = 0; i < 152; i++) node.block();
    await advanceUntil(world.sim, 1, async () => expect((await erin.client.wallet.getTransaction(lost.transaction_id)).status).toBe('failed'));
    // 2 - 0.5 - two fees of 0.000005 (a failed send keeps its fee).
    expect((await erin.client.wallet.getBalance()).crypto.sol).toBe('1.499990000');
  });
});
