import { inject, injectable } from '../shared/di.js';
import { CustodyKeys, type CustodyAddresses } from '../ports/custody-keys.js';
import { Store, type StoreTransaction, type StoreView } from '../ports/store.js';
import { NETWORKS, NETWORK_ASSETS } from './assets.js';
import type { WalletAddresses } from './wallet.schema.js';
import { WalletConfig } from './wallet-config.js';
import { anyRealChain } from './chain-config.js';

/** Custody index of each agent, by agent id. */
export const CUSTODY_INDEXES = 'custody_indexes';
const COUNTER = 'custody_counter';
/**
 * Custody addresses of real chains, by `evm:<lower-case address>` and `solana:<address>`: the
 * index the pollers match transfers against, one lookup per transfer whatever the number of agents.
 */
export const CUSTODY_ADDRESSES = 'custody_addresses';

/** Which agent a custody address belongs to. */
export interface CustodyAddressRecord {
  agent_id: string;
  index: number;
}
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
    @inject(WalletConfig) private readonly config: WalletConfig,
  ) {}

  /** Whether addresses are indexed at creation (only when a network runs on a real chain: deriving costs). */
  private get indexing(): boolean {
    return anyRealChain(this.config.chains);
  }

  /** Gives an agent the next custody index, inside the caller's transaction (none when it has one). */
  async assign(tx: StoreTransaction, agentId: string): Promise<number> {
    const existing = await tx.get<CustodyIndexRecord>(CUSTODY_INDEXES, agentId);
    if (existing) return existing.index;
    // One counter for the world: concurrent creations (on a shared store, in several processes)
    // take their turn on its lock instead of racing to update it and running again.
    await tx.lock(COUNTER, [COUNTER_ID]);
    const counter = await tx.get<{ next: number }>(COUNTER, COUNTER_ID);
    const index = counter?.next ?? 1;
    if (counter) await tx.update(COUNTER, COUNTER_ID, { next: index + 1 });
    else await tx.insert(COUNTER, COUNTER_ID, { next: index + 1 });
    await tx.insert(CUSTODY_INDEXES, agentId, { agent_id: agentId, index } satisfies CustodyIndexRecord);
    if (this.indexing) await this.indexAddresses(tx, agentId, index);
    return index;
  }

  /** Indexes every agent's addresses that is not indexed yet (a world that ran on simulated chains before). */
  async indexAll(): Promise<void> {
    for (const record of await this.store.view.all<CustodyIndexRecord>(CUSTODY_INDEXES)) {
      const { evm } = this.keys.addresses(record.index);
      if (await this.store.view.get(CUSTODY_ADDRESSES, `evm:${evm.toLowerCase()}`)) continue;
      await this.store.transaction((tx) => this.indexAddresses(tx, record.agent_id, record.index));
    }
  }

  /** The agent whose custody address `address` is, on an EVM network or solana. */
  async agentOfAddress(view: StoreView, family: 'evm' | 'solana', address: string): Promise<CustodyAddressRecord | undefined> {
    return view.get<CustodyAddressRecord>(CUSTODY_ADDRESSES, `${family}:${family === 'evm' ? address.toLowerCase() : address}`);
  }

  /** Every agent's custody index record. */
  allRecords(): Promise<CustodyIndexRecord[]> {
    return this.store.view.all<CustodyIndexRecord>(CUSTODY_INDEXES);
  }

  /** Every custody index in use (the hot wallet's 0 first). */
  async allIndexes(): Promise<number[]> {
    return [0, ...(await this.store.view.all<CustodyIndexRecord>(CUSTODY_INDEXES)).map((record) => record.index)];
  }

  private async indexAddresses(tx: StoreTransaction, agentId: string, index: number): Promise<void> {
    const own = this.keys.addresses(index);
    for (const id of [`evm:${own.evm.toLowerCase()}`, `solana:${own.solana}`]) {
      if (!(await tx.get(CUSTODY_ADDRESSES, id))) await tx.insert(CUSTODY_ADDRESSES, id, { agent_id: agentId, index } satisfies CustodyAddressRecord);
    }
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
