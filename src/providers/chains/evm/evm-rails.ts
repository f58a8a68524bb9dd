import type { Hex } from 'viem';
import type { Clock } from '../../../core/ports/clock.js';
import type { OutboundTransfer, RailSettlement, RailSubmission } from '../../../core/ports/payment-rails.js';
import type { Store, StoreTransaction } from '../../../core/ports/store.js';
import { DECIMALS } from '../../../core/wallet/assets.js';
import { toMinorUnits } from '../../../core/wallet/amount.js';
import type { EvmNetwork } from './evm-network.js';

/** The next nonce of each network's hot wallet, by network. */
const NONCES = 'chain_nonces';
/** Signed outbound transactions, by hash: their raw bytes, broadcast again after a crash. */
export const OUTBOUND = 'chain_outbound';

/** A signed outbound transaction as stored before it is broadcast. */
export interface OutboundRecord {
  reference: Hex;
  network: 'ethereum' | 'base';
  transaction_id: string;
  nonce: number;
  raw: Hex;
}

/** Takes the hot wallet's next nonce on a network from the store, inside `tx` (locked: never shared). */
export async function allocateNonce(tx: StoreTransaction, network: EvmNetwork): Promise<number> {
  await tx.lock(NONCES, [network.name]);
  const stored = await tx.get<{ next: number }>(NONCES, network.name);
  const nonce = stored?.next ?? (await network.pendingNonce());
  if (stored) await tx.update(NONCES, network.name, { next: nonce + 1 });
  else await tx.insert(NONCES, network.name, { next: nonce + 1 });
  return nonce;
}

/**
 * Outbound transfers on EVM networks: inside the wallet's transaction the hot wallet's next nonce
 * is taken from the store (locked, so two sends never share one), the transfer is signed and its
 * raw bytes stored with it; the bytes are broadcast once the transaction is durable. A crash before
 * the broadcast loses nothing: {@link EvmRails.resume} broadcasts every stored transaction again at
 * start, the same bytes, so the chain sees one transfer whatever happens. A transfer is `confirmed`
 * at its depth, `failed` when it reverted or when its nonce was used by another transaction.
 */
export class EvmRails {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly networks: ReadonlyMap<string, EvmNetwork>,
    private readonly blockMs: (network: string) => number,
  ) {}

  /** Whether this rail carries the transfer's network. */
  carries(rail: string): boolean {
    return this.networks.has(rail);
  }

  async submit(tx: StoreTransaction, transfer: OutboundTransfer): Promise<RailSubmission> {
    const network = this.networks.get(transfer.rail)!;
    await network.ready;
    const nonce = await allocateNonce(tx, network);
    const amount = toMinorUnits(transfer.amount, DECIMALS[transfer.asset as 'eth' | 'usdc']) as bigint;
    const signed = await network.sign(nonce, transfer.asset as 'eth' | 'usdc', transfer.to as Hex, amount);
    const record: OutboundRecord = { reference: signed.hash, network: network.name, transaction_id: transfer.transaction_id, nonce, raw: signed.raw };
    await tx.insert(OUTBOUND, signed.hash, record);
    // After the commit only: a send that rolled back (402, a crash) never reaches the chain.
    tx.afterCommit(() => void network.broadcast(signed.raw).catch(() => undefined));
    return { reference: signed.hash, block: null, check_at_ms: this.clock.now() + this.blockMs(network.name) };
  }

  /** Whether a reference is one of this rail's transfers. */
  async owns(reference: string): Promise<boolean> {
    const record = await this.store.view.get<OutboundRecord>(OUTBOUND, reference);
    return record !== undefined && this.networks.has(record.network);
  }

  async check(reference: string): Promise<RailSettlement> {
    const record = await this.store.view.get<OutboundRecord>(OUTBOUND, reference);
    if (!record) return { status: 'failed', reason: 'unknown transfer' };
    const network = this.networks.get(record.network)!;
    const again = { status: 'pending' as const, check_at_ms: this.clock.now() + this.blockMs(record.network) };
    await network.catchUp(this.clock.now());
    const receipt = await network.receipt(record.reference);
    if (!receipt) {
      // Not in a block: its nonce taken by another transaction means it can never be; else send the same bytes again.
      if ((await network.minedNonce()) > record.nonce) return { status: 'failed', reason: 'dropped: its nonce was used by another transaction' };
      await network.broadcast(record.raw).catch(() => undefined);
      return again;
    }
    if ((await network.head()) - receipt.block + 1n < BigInt(network.confirmations)) return again;
    return receipt.success ? { status: 'confirmed' } : { status: 'failed', reason: 'reverted' };
  }

  /**
   * At start: sets each hot wallet's stored nonce from the chain when it has none (or when the
   * chain is past it: the operator used the hot wallet elsewhere), then broadcasts every stored
   * transaction again (one may have been signed just before a crash).
   */
  async resume(): Promise<void> {
    for (const network of this.networks.values()) {
      await network.ready;
      const chainNext = await network.pendingNonce();
      await this.store.transaction(async (tx) => {
        await tx.lock(NONCES, [network.name]);
        const stored = await tx.get<{ next: number }>(NONCES, network.name);
        if (!stored) await tx.insert(NONCES, network.name, { next: chainNext });
        else if (stored.next < chainNext) await tx.update(NONCES, network.name, { next: chainNext });
      });
    }
    await this.rebroadcast();
  }

  /**
   * Broadcasts again, in nonce order, every stored hot-wallet transaction whose nonce the chain has
   * not used yet (the node refused or lost it, or the process died before sending): a node that
   * automines takes no nonce gap, so they go lowest first. Each poll calls it.
   */
  async rebroadcast(): Promise<void> {
    const waiting = new Map<string, OutboundRecord[]>();
    for (const record of await this.store.view.all<OutboundRecord>(OUTBOUND)) {
      if (!this.networks.has(record.network)) continue; // another rail's (solana)
      const list = waiting.get(record.network) ?? [];
      list.push(record);
      waiting.set(record.network, list);
    }
    for (const [name, records] of waiting) {
      const network = this.networks.get(name)!;
      await network.ready;
      const mined = await network.minedNonce();
      for (const record of records.filter((r) => r.nonce >= mined).sort((a, b) => a.nonce - b.nonce)) {
        await network.broadcast(record.raw).catch(() => undefined);
      }
    }
  }
}
