import type { KeyPairSigner } from '@solana/kit';
import type { Clock } from '../../../core/ports/clock.js';
import type { OutboundTransfer, RailSettlement, RailSubmission } from '../../../core/ports/payment-rails.js';
import type { Store, StoreTransaction } from '../../../core/ports/store.js';
import { toMinorUnits } from '../../../core/wallet/amount.js';
import { DECIMALS } from '../../../core/wallet/assets.js';
import { OUTBOUND } from '../evm/evm-rails.js';
import { signWire, transferInstructions } from './solana-transactions.js';
import type { SolanaLedger } from './solana-ledger.js';

/** A signed outbound Solana transaction as stored before it is sent. */
interface SolanaOutbound {
  reference: string;
  network: 'solana';
  transaction_id: string;
  wire: string;
  last_valid_block_height: string;
}

/**
 * Outbound transfers on solana: inside the wallet's transaction the hot wallet signs the transfer
 * with a recent blockhash (read before, kept by the poller) and its wire bytes are stored; they are
 * sent once the transaction is durable and again at start. `confirmed` at the depth in slots,
 * `failed` when it failed on chain or its blockhash expired before it landed.
 */
export class SolanaRails {
  private lifetime: { blockhash: string; lastValidBlockHeight: bigint } | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly ledger: SolanaLedger,
    private readonly hot: Promise<KeyPairSigner>,
    private readonly confirmations: number,
    private readonly slotMs: number,
  ) {}

  /** Keeps a recent blockhash for signing (the poller calls it each pass; signing never waits for the network). */
  async refresh(): Promise<void> {
    this.lifetime = await this.ledger.blockhash();
  }

  async submit(tx: StoreTransaction, transfer: OutboundTransfer): Promise<RailSubmission> {
    await this.ledger.ready;
    if (!this.lifetime) await this.refresh();
    const amount = toMinorUnits(transfer.amount, DECIMALS[transfer.asset as 'sol' | 'usdc']) as bigint;
    const hot = await this.hot;
    const instructions = await transferInstructions(hot, transfer.asset as 'sol' | 'usdc', amount, transfer.to, this.ledger.usdcMint());
    const signed = await signWire(hot, instructions, this.lifetime!);
    const record: SolanaOutbound = {
      reference: signed.signature,
      network: 'solana',
      transaction_id: transfer.transaction_id,
      wire: signed.wire,
      last_valid_block_height: String(this.lifetime!.lastValidBlockHeight),
    };
    await tx.insert(OUTBOUND, signed.signature, record);
    tx.afterCommit(() => void this.ledger.sendWire(signed.wire).catch(() => undefined));
    return { reference: signed.signature, block: null, check_at_ms: this.clock.now() + this.slotMs };
  }

  async owns(reference: string): Promise<boolean> {
    return (await this.store.view.get<SolanaOutbound>(OUTBOUND, reference))?.network === 'solana';
  }

  async check(reference: string): Promise<RailSettlement> {
    const record = await this.store.view.get<SolanaOutbound>(OUTBOUND, reference);
    if (!record) return { status: 'failed', reason: 'unknown transfer' };
    await this.ledger.catchUp(this.clock.now());
    const again = { status: 'pending' as const, check_at_ms: this.clock.now() + this.slotMs };
    // Block height (not slot: skipped slots make no block) and read before the status: a
    // transaction not landed once the chain is past its last valid height never will be.
    const height = await this.ledger.blockHeight();
    const landed = await this.ledger.status(reference);
    const slot = await this.ledger.slot();
    if (!landed) {
      if (height > BigInt(record.last_valid_block_height)) return { status: 'failed', reason: 'dropped: its blockhash expired' };
      await this.ledger.sendWire(record.wire).catch(() => undefined);
      return again;
    }
    if (slot - landed.slot + 1n < BigInt(this.confirmations)) return again;
    return landed.success ? { status: 'confirmed' } : { status: 'failed', reason: 'failed on chain' };
  }

  /** Sends every stored Solana transaction again (at start). */
  async resume(): Promise<void> {
    for (const record of await this.store.view.all<SolanaOutbound>(OUTBOUND)) {
      if (record.network !== 'solana' || (await this.ledger.status(record.reference))) continue;
      await this.ledger.sendWire(record.wire).catch(() => undefined);
    }
  }
}
