import type { StoreTransaction, StoreView } from '../ports/store.js';
import type { ChainAsset } from '../ports/chain-networks.js';
import type { Network } from './assets.js';

const FLOWS = 'chain_flows';

/** What the ledger owes agents on one network, per asset, in minor units as decimal strings. */
interface FlowsRecord {
  owed: Partial<Record<ChainAsset, string>>;
}

/**
 * Moves what the ledger owes agents on a network: a credited deposit adds its amount, an
 * on-chain send takes amount and fee (the fee stays in custody as the service's), a failed send
 * gives the amount back. Compared with what custody addresses hold on chain (`/_sim/chain/holdings`).
 */
export async function addOwed(tx: StoreTransaction, network: Network, asset: ChainAsset, delta: bigint): Promise<void> {
  const current = await tx.get<FlowsRecord>(FLOWS, network);
  const before = BigInt(current?.owed[asset] ?? '0');
  const next: FlowsRecord = { owed: { ...(current?.owed ?? {}), [asset]: String(before + delta) } };
  if (current) await tx.update(FLOWS, network, next);
  else await tx.insert(FLOWS, network, next);
}

/** What the ledger owes agents on a network, per asset (minor units). */
export async function owedOn(view: StoreView, network: Network): Promise<Partial<Record<ChainAsset, bigint>>> {
  const record = await view.get<FlowsRecord>(FLOWS, network);
  const owed: Partial<Record<ChainAsset, bigint>> = {};
  for (const [asset, text] of Object.entries(record?.owed ?? {})) owed[asset as ChainAsset] = BigInt(text);
  return owed;
}
