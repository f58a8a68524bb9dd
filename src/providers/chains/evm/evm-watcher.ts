import type { Hex } from 'viem';
import type { Clock } from '../../../core/ports/clock.js';
import type { Store } from '../../../core/ports/store.js';
import type { CustodyService } from '../../../core/wallet/custody.service.js';
import type { DepositService } from '../../../core/wallet/deposit.service.js';
import type { EvmNetwork } from './evm-network.js';
import type { EvmSweeper } from './evm-sweeper.js';

/** Each network's scan cursor: the last block scanned, with its hash (a changed hash is a reorg). */
const CURSORS = 'chain_cursors';
/** Most blocks one pass scans (one `getLogs` each pass). */
const MAX_RANGE = 500n;
/** How far back the scan starts again after a reorg. */
const MAX_REORG = 64n;

interface Cursor {
  height: string;
  hash: Hex;
}

/**
 * The inbound poller of one EVM network: from the stored cursor it scans new blocks for usdc and
 * ETH sent to custody addresses (one `getLogs` per range; each receiver looked up in the custody
 * address index, never a query per agent), records what it finds as pending deposits, walks the
 * cursor back when the chain reorganised below it, and settles pending deposits: credited at the
 * confirmation depth, `failed` when a reorg took their transaction away.
 */
export class EvmWatcher {
  constructor(
    private readonly network: EvmNetwork,
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly custody: CustodyService,
    private readonly deposits: DepositService,
    private readonly sweeper?: EvmSweeper,
  ) {}

  /** Sets the cursor of a network seen for the first time (at start, so no block after start is missed). */
  async init(): Promise<void> {
    await this.cursor(await this.network.head());
  }

  /** One pass: mine due local blocks, scan, settle. Returns how many blocks it scanned. */
  async poll(): Promise<number> {
    const network = this.network;
    await network.catchUp(this.clock.now());
    const head = await network.head();
    let cursor = await this.cursor(head);
    cursor = await this.rewind(cursor);
    let scanned = 0;
    let from = BigInt(cursor.height) + 1n;
    while (from <= head) {
      const to = from + MAX_RANGE - 1n < head ? from + MAX_RANGE - 1n : head;
      const found = await network.scan(from, to, async (address) => (await this.custody.agentOfAddress(this.store.view, 'evm', address)) !== undefined);
      // The hot wallet's own transfers to agents' addresses (gas for sweeps) move custody, not money in.
      const hot = network.hotAddress.toLowerCase();
      for (const deposit of found) if (deposit.from.toLowerCase() !== hot) await this.deposits.observe(network.name, deposit);
      const hash = await network.blockHash(to);
      if (!hash) break;
      await this.saveCursor({ height: String(to), hash });
      scanned += Number(to - from + 1n);
      from = to + 1n;
    }
    await this.settle(head);
    await this.sweeper?.run();
    return scanned;
  }

  private async settle(head: bigint): Promise<void> {
    for (const deposit of await this.deposits.pending(this.network.name)) {
      const receipt = await this.network.receipt(deposit.reference as Hex);
      if (!receipt) {
        // Its block is no longer the one it was seen in: a reorg removed the transfer.
        if ((await this.network.blockHash(BigInt(deposit.block))) !== deposit.block_hash) {
          await this.deposits.settle(deposit.key, { status: 'failed', reason: 'removed by a chain reorganisation' });
        }
        continue;
      }
      if (!receipt.success) {
        await this.deposits.settle(deposit.key, { status: 'failed', reason: 'reverted' });
        continue;
      }
      if (head - receipt.block + 1n >= BigInt(this.network.confirmations)) {
        const index = await this.custody.indexOf(deposit.agent_id);
        // One durable unit: a crash between the two would leave a confirmed deposit that is never swept.
        await this.store.unit(async () => {
          await this.deposits.settle(deposit.key, { status: 'confirmed' });
          await this.sweeper?.add(deposit.key, index, deposit.asset as 'eth' | 'usdc', BigInt(deposit.amount));
        });
      }
    }
  }

  /** The stored cursor; a network seen for the first time starts at its head when remote, at genesis when local. */
  private async cursor(head: bigint): Promise<Cursor> {
    const stored = await this.store.view.get<Cursor>(CURSORS, this.network.name);
    if (stored) return stored;
    const start = this.network.isLocal ? 0n : head;
    const cursor = { height: String(start), hash: (await this.network.blockHash(start))! };
    await this.saveCursor(cursor);
    return cursor;
  }

  /**
   * When the block under the cursor changed (a reorg), steps back {@link MAX_REORG} blocks and
   * scans them again: transfers the new branch holds are seen (those seen before are recognised by
   * their key), and pending deposits the reorg removed fail in {@link settle}.
   */
  private async rewind(cursor: Cursor): Promise<Cursor> {
    const height = BigInt(cursor.height);
    if ((await this.network.blockHash(height)) === cursor.hash) return cursor;
    const back = height > MAX_REORG ? height - MAX_REORG : 0n;
    const next = { height: String(back), hash: (await this.network.blockHash(back)) ?? ('0x' as Hex) };
    await this.saveCursor(next);
    return next;
  }

  private async saveCursor(cursor: Cursor): Promise<void> {
    await this.store.transaction(async (tx) => {
      if (await tx.get(CURSORS, this.network.name)) await tx.update(CURSORS, this.network.name, cursor);
      else await tx.insert(CURSORS, this.network.name, cursor);
    });
  }
}
