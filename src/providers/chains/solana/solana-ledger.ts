import type { ObservedDeposit } from '../../../core/ports/chain-networks.js';

/**
 * What the service needs of a Solana cluster, one interface for the in-process LiteSVM chain and
 * (later) an `@solana/kit` RPC adapter, so rails and poller are written once: slots, a recent
 * blockhash to sign with, raw transactions sent, signature statuses, transfers into custody
 * owners between two slots (balance changes of SOL and of the usdc mint's token accounts), and
 * holdings.
 */
export interface SolanaLedger {
  readonly isLocal: boolean;
  readonly ready: Promise<void>;
  /** The usdc mint. */
  usdcMint(): string;
  /** The current slot. */
  slot(): Promise<bigint>;
  /** A recent blockhash and the last block height it is valid for (signing needs it). */
  blockhash(): Promise<{ blockhash: string; lastValidBlockHeight: bigint }>;
  /** Sends a signed transaction (base64 wire bytes). A transaction already processed is not an error. */
  sendWire(wire: string): Promise<void>;
  /** Where and how a transaction landed, or null while it has not. */
  status(signature: string): Promise<{ slot: bigint; success: boolean } | null>;
  /** SOL and usdc that reached accounts `isCustody` accepts in slots `from..to`. */
  transfersTo(from: bigint, to: bigint, isCustody: (owner: string) => Promise<boolean>): Promise<ObservedDeposit[]>;
  /** What the owners hold together: lamports and usdc units (their associated token accounts). */
  holdings(owners: readonly string[]): Promise<{ sol: bigint; usdc: bigint }>;
  /** Makes the slots due by `nowMs` (local only). */
  catchUp(nowMs: number): Promise<void>;
  /** Sends from the local faucet (local only); answers the signature. */
  faucetDeposit(asset: 'sol' | 'usdc', amount: bigint, to: string): Promise<string>;
  close(): Promise<void>;
}
