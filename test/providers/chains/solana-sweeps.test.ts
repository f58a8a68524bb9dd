// Solana sweeps on a real chain in the process (LiteSVM): deposits of SOL and usdc at an agent's
// custody address move to the hot wallet, which pays the fees; the agent's address ends empty.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../src/providers/store/memory-store.js';
import { HdCustodyKeys } from '../../../src/providers/custody/hd-custody-keys.js';
import { LocalSolana } from '../../../src/providers/chains/solana/local-solana.js';
import { SolanaSweeper } from '../../../src/providers/chains/solana/solana-sweeper.js';
import { signerOf } from '../../../src/providers/chains/solana/solana-transactions.js';
import { TEST_MNEMONIC } from './chain-world.js';

const keys = new HdCustodyKeys(TEST_MNEMONIC);
const HOT = keys.addresses(0).solana;
const SLOT_MS = 400;

describe('solana sweeps (LiteSVM)', () => {
  let chain: LocalSolana;
  let store: MemoryStore;
  let sweeper: SolanaSweeper;
  let now = 0;
  beforeAll(async () => {
    chain = new LocalSolana({ hotWallet: HOT, nowMs: 0, slotMs: SLOT_MS });
    await chain.ready;
    store = new MemoryStore();
    sweeper = new SolanaSweeper(chain, store, keys, signerOf(keys.solanaKey(0).privateKey));
  });
  afterAll(async () => {
    await chain.close();
  });

  /** Makes the next slot (what the service clock does every 400 ms), so what was sent lands. */
  const nextSlot = async () => {
    now += SLOT_MS;
    await chain.catchUp(now);
  };
  const sweeps = () => store.view.all<{ key: string; stage: string; reason: string | null }>('chain_sweeps');

  it('moves SOL whole and usdc into the hot wallet, paid by the hot wallet; the agent address ends empty', async () => {
    const agent = keys.addresses(1).solana;
    await chain.faucetDeposit('sol', 2_000_000_000n, agent);
    await chain.faucetDeposit('usdc', 12_500_000n, agent);
    await nextSlot();
    const hotBefore = await chain.holdings([HOT]);
    expect(await chain.holdings([agent])).toEqual({ sol: 2_000_000_000n, usdc: 12_500_000n });

    await sweeper.add('solana:a:sol', 1, 'sol', 2_000_000_000n);
    await sweeper.add('solana:a:usdc', 1, 'usdc', 12_500_000n);
    await sweeper.add('solana:a:usdc', 1, 'usdc', 12_500_000n); // queued once per deposit
    await sweeper.run();
    expect((await sweeps()).map((sweep) => sweep.stage)).toEqual(['sent', 'sent']);
    await nextSlot();
    await sweeper.run();
    expect(await sweeps()).toEqual([]);

    expect(await chain.holdings([agent])).toEqual({ sol: 0n, usdc: 0n });
    const hotAfter = await chain.holdings([HOT]);
    expect(hotAfter.usdc - hotBefore.usdc).toBe(12_500_000n);
    // The hot wallet received the 2 SOL and paid the fees of both sweeps (5000 lamports a signature, two signatures each).
    expect(hotAfter.sol - hotBefore.sol).toBe(2_000_000_000n - 2n * 10_000n);
  });

  it('leaves no balance under the rent-exempt minimum: a SOL sweep that would takes the rest too', async () => {
    const agent = keys.addresses(2).solana;
    const minimum = await chain.rentExemptMinimum();
    expect(minimum).toBe(890_880n);
    // 1 SOL deposited, but only 0.9995 SOL credited to sweep: the 500,000 lamports left would be under the minimum.
    await chain.faucetDeposit('sol', 1_000_000_000n, agent);
    await nextSlot();
    await sweeper.add('solana:b:sol', 2, 'sol', 999_500_000n);
    await sweeper.run();
    await nextSlot();
    await sweeper.run();
    expect(await chain.holdings([agent])).toEqual({ sol: 0n, usdc: 0n });
    // A second deposit of the same address finds nothing left to move (the first took it): done, nothing sent.
    await sweeper.add('solana:b:sol2', 2, 'sol', 1_000_000n);
    await sweeper.run();
    expect(await sweeps()).toEqual([]);
  });

  it('signs again a sweep whose blockhash expired before it landed (the old bytes can no longer land)', async () => {
    const agent = keys.addresses(3).solana;
    await chain.faucetDeposit('usdc', 3_000_000n, agent);
    await nextSlot();
    await sweeper.add('solana:c:usdc', 3, 'usdc', 3_000_000n);
    // Signed and stored, but the chain never sees it: its blockhash expires 151 slots later.
    const send = chain.sendWire.bind(chain);
    chain.sendWire = async () => {};
    await sweeper.run();
    const [first] = await store.view.all<{ signature: string; wire: string }>('chain_sweeps');
    for (let i = 0; i < 152; i++) await nextSlot();
    await sweeper.run();
    chain.sendWire = send;
    // As a cluster would, the chain refuses the old bytes now.
    await expect(chain.sendWire(first!.wire)).rejects.toThrow(/blockhash not found/);
    expect((await sweeps())[0]).toMatchObject({ stage: 'new' });
    await sweeper.run();
    const [second] = await store.view.all<{ signature: string }>('chain_sweeps');
    expect(second!.signature).not.toBe(first!.signature);
    await nextSlot();
    await sweeper.run();
    expect(await sweeps()).toEqual([]);
    expect((await chain.holdings([agent])).usdc).toBe(0n);
  });

  it('leaves a sweep signed again by another poller alone when it steps the expired record it read before', async () => {
    const agent = keys.addresses(5).solana;
    await chain.faucetDeposit('usdc', 2_000_000n, agent);
    await nextSlot();
    await sweeper.add('solana:e:usdc', 5, 'usdc', 2_000_000n);
    const send = chain.sendWire.bind(chain);
    chain.sendWire = async () => {};
    await sweeper.run();
    // What a second poller read, before this one found the blockhash expired and signed again.
    const [stale] = await store.view.all<{ key: string; signature: string }>('chain_sweeps');
    for (let i = 0; i < 152; i++) await nextSlot();
    await sweeper.run();
    await sweeper.run();
    chain.sendWire = send;
    const [resigned] = await store.view.all<{ signature: string; stage: string }>('chain_sweeps');
    expect(resigned).toMatchObject({ stage: 'sent' });
    expect(resigned!.signature).not.toBe(stale!.signature);
    // The second poller's step from its stale read: the expiry it sees was handled already.
    const other = new SolanaSweeper(chain, store, keys, signerOf(keys.solanaKey(0).privateKey));
    await (other as unknown as { step(sweep: unknown): Promise<void> }).step(stale);
    expect((await store.view.all('chain_sweeps'))[0]).toEqual(resigned);
    await sweeper.run();
    await nextSlot();
    await sweeper.run();
    expect(await sweeps()).toEqual([]);
    expect((await chain.holdings([agent])).usdc).toBe(0n);
  });

  it('sends one sweep when two pollers of one world step it at once (the second finds it signed)', async () => {
    const agent = keys.addresses(4).solana;
    await chain.faucetDeposit('sol', 500_000_000n, agent);
    await nextSlot();
    const other = new SolanaSweeper(chain, store, keys, signerOf(keys.solanaKey(0).privateKey));
    await sweeper.add('solana:d:sol', 4, 'sol', 500_000_000n);
    const send = chain.sendWire.bind(chain);
    const wires: string[] = [];
    chain.sendWire = async (wire) => {
      wires.push(wire);
      return send(wire);
    };
    await Promise.all([sweeper.run(), other.run()]);
    chain.sendWire = send;
    expect(wires).toHaveLength(1);
    expect((await store.view.all<{ wire: string }>('chain_sweeps'))[0]!.wire).toBe(wires[0]);
    await nextSlot();
    await sweeper.run();
    expect(await sweeps()).toEqual([]);
    expect((await chain.holdings([agent])).sol).toBe(0n);
  });
});
