import {
  address,
  createSolanaRpc,
  createSolanaRpcFromTransport,
  isSolanaError,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_BLOCK_NOT_AVAILABLE,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_LONG_TERM_STORAGE_SLOT_SKIPPED,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SLOT_SKIPPED,
  SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED,
  signature as toSignature,
  type Base64EncodedWireTransaction,
  type RpcTransport,
} from '@solana/kit';
import type { ObservedDeposit } from '../../../core/ports/chain-networks.js';
import { depositsInBlock } from './solana-block-deposits.js';
import type { SolanaBlockRef, SolanaLedger, SolanaScan } from './solana-ledger.js';
import { usdcAccountOf } from './solana-transactions.js';

/** Reading at `confirmed`: voted on by a supermajority, so forks that drop it are rare (and handled). */
const COMMITMENT = 'confirmed' as const;

/** Whether an RPC error says the slot has no block: skipped, or (not yet, or no longer) a block of this fork. */
function isNoBlock(error: unknown): boolean {
  return (
    isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SLOT_SKIPPED) ||
    isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_LONG_TERM_STORAGE_SLOT_SKIPPED) ||
    isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_BLOCK_NOT_AVAILABLE)
  );
}

/**
 * A Solana cluster over JSON-RPC through `@solana/kit` (devnet, mainnet, a node of your own):
 * slots, block heights and blockhashes, raw transactions sent, signature statuses, and deposits
 * read from each block's balance changes (lamports of custody owners; usdc token balances by
 * owner), never a query per address. A slot without a block is passed over; the poller checks
 * each block's parent, so a block that was not available yet is read again on the next pass.
 */
export class RpcSolana implements SolanaLedger {
  readonly isLocal = false;
  readonly ready = Promise.resolve();
  private readonly rpc;
  private rentMinimum: bigint | undefined;

  /** `transport` replaces HTTP (tests give recorded answers). */
  constructor(
    url: string,
    private readonly mint: string | null,
    transport?: RpcTransport,
  ) {
    this.rpc = transport ? createSolanaRpcFromTransport(transport) : createSolanaRpc(url);
  }

  usdcMint(): string {
    if (!this.mint) throw new Error('solana: no usdc mint (give --usdc solana=MINT)');
    return this.mint;
  }

  async slot(): Promise<bigint> {
    return this.rpc.getSlot({ commitment: COMMITMENT }).send();
  }

  async blockHeight(): Promise<bigint> {
    return this.rpc.getBlockHeight({ commitment: COMMITMENT }).send();
  }

  async block(slot: bigint): Promise<SolanaBlockRef | null> {
    try {
      const block = await this.rpc.getBlock(slot, { commitment: COMMITMENT, transactionDetails: 'none', rewards: false }).send();
      return block ? { slot, hash: block.blockhash, parentSlot: block.parentSlot, previousHash: block.previousBlockhash } : null;
    } catch (error) {
      if (isNoBlock(error)) return null;
      throw error;
    }
  }

  async blockhash(): Promise<{ blockhash: string; lastValidBlockHeight: bigint }> {
    const { value } = await this.rpc.getLatestBlockhash({ commitment: COMMITMENT }).send();
    return { blockhash: value.blockhash, lastValidBlockHeight: value.lastValidBlockHeight };
  }

  async sendWire(wire: string): Promise<void> {
    try {
      await this.rpc.sendTransaction(wire as Base64EncodedWireTransaction, { encoding: 'base64', preflightCommitment: COMMITMENT }).send();
    } catch (error) {
      // The same bytes again after a restart: the cluster already has them (a preflight failure whose cause is AlreadyProcessed).
      if (isSolanaError((error as Error).cause, SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED)) return;
      throw error;
    }
  }

  async status(signature: string): Promise<{ slot: bigint; success: boolean } | null> {
    const { value } = await this.rpc.getSignatureStatuses([toSignature(signature)], { searchTransactionHistory: true }).send();
    const found = value[0];
    if (!found || found.confirmationStatus === 'processed') return null;
    return { slot: found.slot, success: found.err === null };
  }

  async scan(from: bigint, to: bigint, isCustody: (owner: string) => Promise<boolean>): Promise<SolanaScan> {
    const deposits: ObservedDeposit[] = [];
    const blocks: SolanaBlockRef[] = [];
    for (let slot = from; slot <= to; slot++) {
      let block;
      try {
        block = await this.rpc.getBlock(slot, { commitment: COMMITMENT, encoding: 'json', transactionDetails: 'full', rewards: false, maxSupportedTransactionVersion: 0 }).send();
      } catch (error) {
        if (isNoBlock(error)) continue;
        throw error;
      }
      if (!block) continue;
      blocks.push({ slot, hash: block.blockhash, parentSlot: block.parentSlot, previousHash: block.previousBlockhash });
      deposits.push(...(await depositsInBlock(block, slot, this.mint, isCustody)));
    }
    return { deposits, blocks };
  }

  async holdings(owners: readonly string[]): Promise<{ sol: bigint; usdc: bigint }> {
    let sol = 0n;
    let usdc = 0n;
    for (const owner of owners) {
      sol += (await this.rpc.getBalance(address(owner), { commitment: COMMITMENT }).send()).value;
      if (!this.mint) continue;
      try {
        usdc += BigInt((await this.rpc.getTokenAccountBalance(await usdcAccountOf(owner, this.mint), { commitment: COMMITMENT }).send()).value.amount);
      } catch {
        // No token account yet: it holds no usdc.
      }
    }
    return { sol, usdc };
  }

  async rentExemptMinimum(): Promise<bigint> {
    this.rentMinimum ??= await this.rpc.getMinimumBalanceForRentExemption(0n, { commitment: COMMITMENT }).send();
    return this.rentMinimum;
  }

  async catchUp(): Promise<void> {}

  async faucetDeposit(): Promise<string> {
    throw new Error('solana runs over JSON-RPC: deposits come from the cluster itself');
  }

  async close(): Promise<void> {}
}
