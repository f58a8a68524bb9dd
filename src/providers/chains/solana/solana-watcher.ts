import type { Store } from '../../../core/ports/store.js';
import type { Clock } from '../../../core/ports/clock.js';
import type { CustodyService } from '../../../core/wallet/custody.service.js';
import type { DepositService } from '../../../core/wallet/deposit.service.js';
import type { SolanaLedger } from './solana-ledger.js';
import type { SolanaSweeper } from './solana-sweeper.js';

const CURSORS = 'chain_cursors';
/** How many slots the scan steps back when the block under its cursor is gone (a fork was dropped). */
const MAX_REORG = 64n;
/** Most slots one pass reads (one `getBlock` each). */
const MAX_RANGE = 500n;
/**
 * How many slots past a deposit's slot a transaction that left the chain with a dropped fork is
 * given to land again before it fails: its blockhash is valid for 151 blocks, and 300 slots hold
 * more blocks than that unless over half the slots are skipped.
 */
const RELAND_SLOTS = 300n;

/**
 * The scan cursor of solana: the last slot read (`height`), and the last block seen at or below it
 * (`block`, `hash`; null right after a start or a step back). Cursors of the first version kept
 * `hash: "slot:N"` alone: read as a block at `height`, which a cluster's hash never matches, so
 * the scan steps back once and reads those slots again (deposits are recognised by their key).
 */
interface Cursor {
  height: string;
  hash: string | null;
  block?: string | null;
}

/**
 * The inbound poller of solana: from the stored cursor it reads the SOL and usdc that reached
 * custody owners, slot by slot, records them as pending deposits (each owner looked up in the
 * custody address index), and credits them at the depth in slots. Forks: each block read must
 * build on the last one seen (its parent slot and hash); when the block under the cursor is gone
 * or changed, the scan steps back {@link MAX_REORG} slots and reads them again. A pending deposit
 * whose transaction left the chain is never credited: it waits to land again (credited once, at
 * its new slot's depth) and fails when it can no longer.
 */
export class SolanaWatcher {
  constructor(
    private readonly ledger: SolanaLedger,
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly custody: CustodyService,
    private readonly deposits: DepositService,
    private readonly confirmations: number,
    private readonly sweeper?: SolanaSweeper,
  ) {}

  /**
   * Sets the cursor at start: a remote cluster's where it is stored, or at its current slot the
   * first time; a local chain's at slot 0 every time (it lives in memory: each start makes a new
   * one, whatever cursor a world kept in a file remembers).
   */
  async init(): Promise<void> {
    if (!this.ledger.isLocal && (await this.store.view.get(CURSORS, 'solana'))) return;
    const start = this.ledger.isLocal ? 0n : await this.ledger.slot();
    const block = await this.ledger.block(start);
    await this.save({ height: String(start), hash: block?.hash ?? null, block: block ? String(start) : null });
  }

  /** One pass: make due local slots, check the cursor, scan, settle, sweep. Returns how many slots it read. */
  async poll(): Promise<number> {
    await this.ledger.catchUp(this.clock.now());
    const head = await this.ledger.slot();
    const cursor = await this.checked(await this.cursor());
    let scanned = 0;
    const from = BigInt(cursor.height) + 1n;
    if (from <= head) {
      const to = from + MAX_RANGE - 1n < head ? from + MAX_RANGE - 1n : head;
      const { deposits, blocks } = await this.ledger.scan(from, to, async (owner) => (await this.custody.agentOfAddress(this.store.view, 'solana', owner)) !== undefined);
      // Walk the blocks read while each builds on the one before; stop at the first that does not
      // (a fork, or a block the node did not have yet): the next pass reads again after the last
      // good block, and steps back if that block is the one that left the chain.
      let last = cursor.block ? { slot: BigInt(cursor.block), hash: cursor.hash } : null;
      let until = to;
      for (const block of blocks) {
        if (last && (block.parentSlot !== last.slot || block.previousHash !== last.hash)) {
          until = last.slot;
          break;
        }
        last = { slot: block.slot, hash: block.hash };
      }
      for (const deposit of deposits) if (BigInt(deposit.block) <= until) await this.deposits.observe('solana', deposit);
      if (until >= from) await this.save({ height: String(until), hash: last?.hash ?? null, block: last ? String(last.slot) : null });
      scanned = Number(to - from + 1n);
    }
    await this.settle(head);
    await this.sweeper?.run();
    return scanned;
  }

  private async settle(head: bigint): Promise<void> {
    for (const deposit of await this.deposits.pending('solana')) {
      const landed = await this.ledger.status(deposit.reference);
      if (!landed) {
        // Not in the chain: while its block is still there it is on its way; once the block is gone
        // (dropped with a fork) it is never credited, and fails when it can no longer land again.
        const at = await this.ledger.block(BigInt(deposit.block));
        if (at?.hash === deposit.block_hash) continue;
        if (head > BigInt(deposit.block) + RELAND_SLOTS) await this.deposits.settle(deposit.key, { status: 'failed', reason: 'removed by a chain reorganisation' });
        continue;
      }
      if (!landed.success) await this.deposits.settle(deposit.key, { status: 'failed', reason: 'failed on chain' });
      else if (head - landed.slot + 1n >= BigInt(this.confirmations)) {
        const index = await this.custody.indexOf(deposit.agent_id);
        // One durable unit: a crash between the two would leave a confirmed deposit that is never swept.
        await this.store.unit(async () => {
          await this.deposits.settle(deposit.key, { status: 'confirmed' });
          await this.sweeper?.add(deposit.key, index, deposit.asset as 'sol' | 'usdc', BigInt(deposit.amount));
        });
      }
    }
  }

  private async cursor(): Promise<Cursor> {
    const stored = await this.store.view.get<Cursor>(CURSORS, 'solana');
    if (!stored) throw new Error('solana: the scan cursor is missing (init did not run)');
    return stored.block === undefined ? { ...stored, block: stored.height } : stored;
  }

  /** The cursor, stepped back {@link MAX_REORG} slots when the block under it is gone or changed (a fork was dropped). */
  private async checked(cursor: Cursor): Promise<Cursor> {
    if (!cursor.block) return cursor;
    const block = await this.ledger.block(BigInt(cursor.block));
    if (block && block.hash === cursor.hash) return cursor;
    const height = BigInt(cursor.block);
    const back = { height: String(height > MAX_REORG ? height - MAX_REORG : 0n), hash: null, block: null };
    await this.save(back);
    return back;
  }

  private async save(cursor: Cursor): Promise<void> {
    await this.store.transaction(async (tx) => {
      if (await tx.get(CURSORS, 'solana')) await tx.update(CURSORS, 'solana', cursor);
      else await tx.insert(CURSORS, 'solana', cursor);
    });
  }
}
