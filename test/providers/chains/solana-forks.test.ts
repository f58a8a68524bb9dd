// Forks on solana over JSON-RPC: the service's poller against a scripted node (solana-fork-node.ts)
// whose blocks the test drops and rebuilds, as a cluster abandoning a fork would. A deposit whose
// block left the chain before its depth is never credited; one seen again on the new branch is
// credited once; a block the node did not have yet is read again, not passed over.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAIN_STORES, eventually, type ChainWorld } from './chain-world.js';
import { forkNodeWorld, startForkNode, type ForkNode } from './solana-fork-node.js';

describe.each(CHAIN_STORES)('solana forks over JSON-RPC (a scripted node), world in %s', (store) => {
  let node: ForkNode;
  let world: ChainWorld;
  beforeAll(async () => {
    node = await startForkNode();
    world = await forkNodeWorld(node, store);
  }, 60_000);
  afterAll(async () => {
    await world?.runtime.close();
    await node?.close();
  });

  const solanaAddress = async (agent: Awaited<ReturnType<ChainWorld['agent']>>) => (await agent.client.wallet.getAddresses()).addresses.find((entry) => entry.network === 'solana')!.address;
  const incoming = async (agent: Awaited<ReturnType<ChainWorld['agent']>>) => (await agent.client.wallet.listTransactions({ direction: 'in' })).transactions;
  /** Lets the poller (every second over RPC) run at least two passes over a chain that does not change. */
  const passes = () => new Promise((resolve) => setTimeout(resolve, 2_500));

  it('never credits a deposit whose block a dropped fork took away; it fails once it can no longer land', async () => {
    const alice = await world.agent('alice');
    const deposit = node.solTransfer(await solanaAddress(alice), 1_000_000_000);
    const slot = node.block([deposit.transaction]);
    node.block();
    await eventually(async () => expect(await incoming(alice)).toMatchObject([{ reference: deposit.signature, status: 'pending', amount: '1.000000000', network: 'solana' }]));
    // The cluster abandons the fork holding the deposit's block and the one on it; the new branch builds on the block before.
    node.dropFrom(slot);
    node.block();
    node.block();
    node.block();
    await passes();
    // Deep enough now had it stayed, but it left the chain: still pending, never credited.
    expect(await incoming(alice)).toMatchObject([{ reference: deposit.signature, status: 'pending' }]);
    expect((await alice.client.wallet.getBalance()).crypto.sol).toBe('0.000000000');
    // 300 slots on it can no longer land (its blockhash expired): failed, never credited.
    node.block([], node.head() + 300);
    await eventually(async () => expect(await incoming(alice)).toMatchObject([{ reference: deposit.signature, status: 'failed' }]));
    expect((await alice.client.wallet.getBalance()).crypto.sol).toBe('0.000000000');
  });

  it('credits once a deposit seen again on the branch that replaced its fork', async () => {
    const bob = await world.agent('bob');
    const deposit = node.solTransfer(await solanaAddress(bob), 2_000_000_000);
    const slot = node.block([deposit.transaction]);
    await eventually(async () => expect(await incoming(bob)).toMatchObject([{ reference: deposit.signature, status: 'pending' }]));
    // The fork is dropped, and the same transaction lands again in a block of the new branch.
    node.dropFrom(slot);
    node.block();
    node.block([deposit.transaction]);
    await passes();
    expect((await bob.client.wallet.getBalance()).crypto.sol).toBe('0.000000000');
    node.block();
    node.block();
    await eventually(async () => expect((await bob.client.wallet.getBalance()).crypto.sol).toBe('2.000000000'));
    node.block();
    await passes();
    expect((await bob.client.wallet.getBalance()).crypto.sol).toBe('2.000000000');
    const records = await incoming(bob);
    expect(records).toMatchObject([{ reference: deposit.signature, status: 'confirmed' }]);
    const events = (await world.runtime.sim.events(0, 10_000)).events.filter((event) => event.data.transaction_id === records[0]!.id);
    expect(events.map((event) => event.type)).toEqual(['wallet.transaction.created', 'wallet.transaction.updated']);
  });

  it('reads again a block the node did not have yet (its successor names it as parent) instead of passing it over', async () => {
    const carol = await world.agent('carol');
    const deposit = node.solTransfer(await solanaAddress(carol), 500_000_000);
    const slot = node.head() + 1;
    node.notAvailableOnce(slot);
    node.block([deposit.transaction]);
    node.block();
    node.block();
    await eventually(async () => expect((await carol.client.wallet.getBalance()).crypto.sol).toBe('0.500000000'));
    expect(await incoming(carol)).toMatchObject([{ reference: deposit.signature, status: 'confirmed' }]);
  });

  it('steps back when the block under its cursor changed, and finds a deposit the new branch put in a slot it had read', async () => {
    const dave = await world.agent('dave');
    const slot = node.block();
    await passes();
    // The block at `slot` (already read) is replaced by another at the same slot that holds a deposit.
    node.dropFrom(slot);
    const deposit = node.solTransfer(await solanaAddress(dave), 300_000_000);
    node.block([deposit.transaction], slot);
    node.block([], slot + 1);
    node.block([], slot + 2);
    await eventually(async () => expect((await dave.client.wallet.getBalance()).crypto.sol).toBe('0.300000000'));
    expect(await incoming(dave)).toMatchObject([{ reference: deposit.signature, status: 'confirmed' }]);
  });
});
