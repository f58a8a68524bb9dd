import type { ServiceIdentifier } from '../shared/di.js';
import type { ChainNetwork as Network } from './payment-rails.js';

/** A chain asset: what deposits and holdings are counted in. */
export type ChainAsset = 'usdc' | 'eth' | 'sol';

/** A transfer to a custody address, as a chain shows it. */
export interface ObservedDeposit {
  /** Unique per transfer: the transaction hash, with `:logIndex` for a token transfer. */
  key: string;
  /** The transaction hash (signature on solana). */
  reference: string;
  block: number;
  block_hash: string;
  /** The sending address. */
  from: string;
  /** The receiving custody address, as the chain spells it. */
  to: string;
  asset: ChainAsset;
  /** Minor units of the asset. */
  amount: bigint;
}

/**
 * The real chains of the service (networks in `local` or JSON-RPC mode): what the control plane
 * asks of them. Deposits come the other way, from each network's poller into `DepositService`.
 */
export interface ChainNetworks {
  /** Sends a real transfer from the local chain's faucet to `to`; answers its transaction hash. Local networks only. */
  faucetDeposit(network: Network, asset: ChainAsset, amount: bigint, to: string): Promise<string>;
  /** What the given addresses hold together on chain, per asset the network carries (minor units). */
  holdings(network: Network, addresses: readonly string[]): Promise<Partial<Record<ChainAsset, bigint>>>;
}

/** Injection token of {@link ChainNetworks}. */
export const ChainNetworks = Symbol.for('agent-services/ChainNetworks') as ServiceIdentifier<ChainNetworks>;
