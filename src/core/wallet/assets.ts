/** The assets a wallet holds (SPEC.md part 2). */
export const ASSETS = ['usd', 'eur', 'usdc', 'eth', 'sol'] as const;
/** One of {@link ASSETS}. */
export type Asset = (typeof ASSETS)[number];

/** Decimal places of each asset: fiat 2 (DECISIONS.md), usdc 6, eth 18, sol 9 (SPEC.md). */
export const DECIMALS: Readonly<Record<Asset, number>> = { usd: 2, eur: 2, usdc: 6, eth: 18, sol: 9 };

/** The blockchains of the fake chain. */
export const NETWORKS = ['ethereum', 'base', 'solana'] as const;
/** One of {@link NETWORKS}. */
export type Network = (typeof NETWORKS)[number];

/** Which assets each network carries (DECISIONS.md). */
export const NETWORK_ASSETS: Readonly<Record<Network, readonly Asset[]>> = {
  ethereum: ['usdc', 'eth'],
  base: ['usdc', 'eth'],
  solana: ['usdc', 'sol'],
};

/** Whether an asset is fiat (usd, eur). */
export function isFiat(asset: Asset): boolean {
  return asset === 'usd' || asset === 'eur';
}
