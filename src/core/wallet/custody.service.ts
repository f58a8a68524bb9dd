import { inject, injectable } from '../shared/di.js';
import { CustodyKeys, type CustodyAddresses } from '../ports/custody-keys.js';
import { Store, type StoreTransaction, type StoreView } from '../ports/store.js';
import { NETWORKS, NETWORK_ASSETS } from './assets.js';
import type { WalletAddresses } from './wallet.schema.js';

/** Custody index of each agent, by agent id. */
export const CUSTODY_INDEXES = 'custody_indexes';
const COUNTER = 'custody_counter';
const COUNTER_ID = 'next';

/** An agent's custody index as stored (with its addresses once a real chain needs them). */
export interface CustodyIndexRecord {
  agent_id: string;
  index: number;
}

/**
 * Custody indexes: each agent gets the next index (from 1; index 0 is the hot wallet) when its
 * wallet opens, kept forever and never handed out again, so an address once given to an agent
 * never belongs to another. Addresses derive from the index through {@link CustodyKeys}.
 */
@injectable()
export class CustodyService {
  constructor(
    @inject(Store) private readonly store: Store,
    @inject(CustodyKeys) private readonly keys: CustodyKeys,
  ) {}

  /** Gives an agent the next custody index, inside the caller's transaction (none when it has one). */
  async assign(tx: StoreTransaction, agentId: string): Promise<number> {
    const existing = await tx.get<CustodyIndexRecord>(CUSTODY_INDEXES, agentId);
    if (existing) return existing.index;
    const counter = await tx.get<{ next: number }>(COUNTER, COUNTER_ID);
    const index = counter?.next ?? 1;
    if (counter) await tx.update(COUNTER, COUNTER_ID, { next: index + 1 });
    else await tx.insert(COUNTER, COUNTER_ID, { next: index + 1 });
    await tx.insert(CUSTODY_INDEXES, agentId, { agent_id: agentId, index } satisfies CustodyIndexRecord);
    return index;
  }

  /** An agent's custody index, assigned now for an agent created before custody existed. */
  async indexOf(agentId: string): Promise<number> {
    const found = await this.store.view.get<CustodyIndexRecord>(CUSTODY_INDEXES, agentId);
    if (found) return found.index;
    return this.store.transaction((tx) => this.assign(tx, agentId));
  }

  /** An agent's custody index as read in `view`, or undefined. */
  async findIndex(view: StoreView, agentId: string): Promise<number | undefined> {
    return (await view.get<CustodyIndexRecord>(CUSTODY_INDEXES, agentId))?.index;
  }

  /** The addresses of a custody index (0: the hot wallet). */
  addressesOf(index: number): CustodyAddresses {
    return this.keys.addresses(index);
  }

  /** `GET /v1/wallet/addresses`: the agent's deposit address on each network and the assets it takes there. */
  async addresses(agentId: string): Promise<WalletAddresses> {
    const own = this.keys.addresses(await this.indexOf(agentId));
    return {
      addresses: NETWORKS.map((network) => ({ network, address: network === 'solana' ? own.solana : own.evm, assets: [...NETWORK_ASSETS[network]] })),
    };
  }
}
