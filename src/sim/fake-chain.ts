import { base58 } from '@scure/base';
import type { ChainNetwork } from '../core/ports/payment-rails.js';

/**
 * Block time and confirmation time of each simulated chain, in service milliseconds
 * (DECISIONS.md: ethereum 24 s, base 4 s, solana 1 s until confirmed).
 */
export const CHAIN_TIMING: Readonly<Record<ChainNetwork, { blockMs: number; confirmMs: number }>> = {
  ethereum: { blockMs: 12_000, confirmMs: 24_000 },
  base: { blockMs: 2_000, confirmMs: 4_000 },
  solana: { blockMs: 400, confirmMs: 1_000 },
};

/** Block 0 of every simulated chain. */
export const GENESIS_MS = Date.UTC(2020, 0, 1);

/** The block being produced at `atMs` on the simulated clock. */
export function blockAt(network: ChainNetwork, atMs: number): number {
  return Math.max(0, Math.floor((atMs - GENESIS_MS) / CHAIN_TIMING[network].blockMs));
}

/** A transaction hash in the network's form: `0x` + 64 hex (EVM) or a base58 64-byte signature (Solana). */
export function transactionHash(network: ChainNetwork, nextBytes: (n: number) => Uint8Array): string {
  if (network === 'solana') return base58.encode(nextBytes(64));
  return `0x${Buffer.from(nextBytes(32)).toString('hex')}`;
}
