import type { ObservedDeposit } from '../../../core/ports/chain-networks.js';

/** A block as the fork check needs it: where it is, its hash, and the block it builds on. */
export interface SolanaBlockRef {
  slot: bigint;
  hash: string;
  parentSlot: bigint;
  previousHash: string;
}

/** What a scan of slots found: transfers into custody owners, and the blocks read (in slot order). */
export interface SolanaScan {
  deposits: ObservedDeposit[];
  blocks: SolanaBlockRef[];
}

/**
 * What the service needs of a Solana cluster, one interface for the in-process LiteSVM chain and
 * the `@solana/kit` RPC adapter, so rails, poller and sweeper are written once: slots and block
 * heights, blocks (hash and parent, for forks), a recent blockhash to sign with, raw transactions
 * sent, signature statuses, transfers into custody owners between two slots (balance changes of
 * SOL and of the usdc mint's token accounts), and holdings.
 */
export interface SolanaLedger {
  readonly isLocal: boolean;
  readonly ready: Promise<void>;
  /** The usdc mint. */
  usdcMint(): string;
  /** The current slot. */
  slot(): Promise<bigint>;
  /** The current block height (fewer than slots: skipped slots make no block); blockhashes expire by it. */
  blockHeight(): Promise<bigint>;
  /** The block at `slot`, or null when the slot has none (skipped, or its block was dropped with a fork). */
  block(slot: bigint): Promise<SolanaBlockRef | null>;
  /** A recent blockhash and the last block height it is valid for (signing needs it). */
  blockhash(): Promise<{ blockhash: string; lastValidBlockHeight: bigint }>;
  /** Sends a signed transaction (base64 wire bytes). A transaction already processed is not an error. */
  sendWire(wire: string): Promise<void>;
  /** Where and how a transaction landed, or null while it has not. */
  status(signature: string): Promise<{ slot: bigint; success: boolean } | null>;
  /** SOL and usdc that reached accounts `isCustody` accepts in slots `from..to`, and the blocks read. */
  scan(from: bigint, to: bigint, isCustody: (owner: string) => Promise<boolean>): Promise<SolanaScan>;
  /** What the owners hold together: lamports and usdc units (their associated token accounts). */
  holdings(owners: readonly string[]): Promise<{ sol: bigint; usdc: bigint }>;
  /** The fewest lamports an account without data may hold (other than none): the rent-exempt minimum. */
  rentExemptMinimum(): Promise<bigint>;
  /** Makes the slots due by `nowMs` (local only). */
  catchUp(nowMs: number): Promise<void>;
  /** Sends from the local faucet (local only); answers the signature. */
  faucetDeposit(asset: 'sol' | 'usdc', amount: bigint, to: string): Promise<string>;
  close(): Promise<void>;
}
