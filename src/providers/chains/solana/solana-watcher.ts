import type { Store } from '../../../core/ports/store.js';
import type { Clock } from '../../../core/ports/clock.js';
import type { CustodyService } from '../../../core/wallet/custody.service.js';
import type { DepositService } from '../../../core/wallet/deposit.service.js';
import type { SolanaLedger } from './solana-ledger.js';

const CURSORS = 'chain_cursors';

/**
 * The inbound poller of solana: from the stored slot cursor it reads the SOL and usdc that reached
 * custody owners, slot by slot, records them as pending deposits (each owner looked up in the
 * custody address index), and credits them at the depth in slots, or fails them when their
 * transaction failed.
 */
export class SolanaWatcher {
  constructor(
    private readonly ledger: SolanaLedger,
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly custody: CustodyService,
    private readonly deposits: DepositService,
    private readonly confirmations: number,
  ) {}

  /** Sets the cursor at start when there is none (local chains from slot 0, remote ones at the current slot). */
  async init(): Promise<void> {
    if (await this.store.view.get(CURSORS, 'solana')) return;
    const start = this.ledger.isLocal ? 0n : await this.ledger.slot();
    await this.save(start);
  }

  async poll(): Promise<number> {
    await this.ledger.catchUp(this.clock.now());
    const head = await this.ledger.slot();
    const cursor = BigInt((await this.store.view.get<{ height: string }>(CURSORS, 'solana'))?.height ?? '0');
    let scanned = 0;
    if (head > cursor || (cursor === 0n && head === 0n)) {
      const from = cursor === 0n ? 0n : cursor + 1n;
      const found = await this.ledger.transfersTo(from, head, async (owner) => (await this.custody.agentOfAddress(this.store.view, 'solana', owner)) !== undefined);
      for (const deposit of found) await this.deposits.observe('solana', deposit);
      if (head > cursor) await this.save(head);
      scanned = Number(head - from + 1n);
    }
    for (const deposit of await this.deposits.pending('solana')) {
      const landed = await this.ledger.status(deposit.reference);
      if (!landed) continue;
      if (!landed.success) await this.deposits.settle(deposit.key, { status: 'failed', reason: 'failed on chain' });
      else if (head - landed.slot + 1n >= BigInt(this.confirmations)) await this.deposits.settle(deposit.key, { status: 'confirmed' });
    }
    return scanned;
  }

  private async save(height: bigint): Promise<void> {
    const record = { height: String(height), hash: `slot:${height}` };
    await this.store.transaction(async (tx) => {
      if (await tx.get(CURSORS, 'solana')) await tx.update(CURSORS, 'solana', record);
      else await tx.insert(CURSORS, 'solana', record);
    });
  }
}
