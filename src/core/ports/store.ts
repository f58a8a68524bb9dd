import type { ServiceIdentifier } from '../shared/di.js';

/** A stored record together with its insertion position (the key of keyset pagination). */
export interface Positioned<T> {
  record: T;
  position: number;
}

/** A newest-first page request over one partition of a collection. */
export interface PageQuery<T> {
  /** Partition key, usually the owning agent's id. */
  partition: string;
  /** Only records inserted before this position (exclusive): the cursor of the previous page. */
  before?: number;
  /** How many records at most. */
  limit: number;
  /** Keeps only records for which this returns true (applied while walking, before the limit). */
  where?: (record: T) => boolean;
}

/** A page of records, newest first; `hasMore` tells whether older matching records exist. */
export interface PageResult<T> {
  items: Positioned<T>[];
  hasMore: boolean;
}

/** Read access to committed state. */
export interface StoreView {
  /** The record `id` of `collection`, or undefined. */
  get<T>(collection: string, id: string): T | undefined;
  /** A newest-first page of one partition; cost grows with the page, not with the collection. */
  page<T>(collection: string, query: PageQuery<T>): PageResult<T>;
  /** Every record of a collection in insertion order (for start-up work such as re-arming jobs). */
  all<T>(collection: string): T[];
  /** How many records a partition (or, without one, the whole collection) holds. */
  count(collection: string, partition?: string): number;
}

/** Write access inside {@link Store.transaction}; reads see the transaction's own writes. */
export interface StoreTransaction extends StoreView {
  /** Adds a record under a new id at the newest position of its partition. */
  insert<T>(collection: string, id: string, record: T, partition?: string): void;
  /** Replaces an existing record, keeping its position. */
  update<T>(collection: string, id: string, record: T): void;
  /** Removes a record; false when there was none. */
  remove(collection: string, id: string): boolean;
  /** Runs `callback` after this transaction commits; dropped if it rolls back. */
  afterCommit(callback: () => void): void;
}

/** The whole store as plain JSON, for snapshots and persistence. */
export interface StoreSnapshot {
  collections: Record<string, { nextPosition: number; rows: Array<[id: string, partition: string, position: number, record: unknown]> }>;
}

/**
 * Records by collection. Mutations happen only inside `transaction(fn)`, whose `fn` is
 * synchronous: JavaScript runs it to the end without interleaving, so transactions are
 * serialised and no reader ever sees half of one; if `fn` throws, every write it made is undone.
 */
export interface Store {
  /** Committed state. */
  readonly view: StoreView;
  /**
   * Runs `fn` atomically; resolves with its result once every commit hook (e.g. persistence) is
   * done, rejects with what `fn` threw after rolling its writes back.
   */
  transaction<T>(fn: (tx: StoreTransaction) => T): Promise<T>;
  /** Registers work to run after each commit that changed something. */
  onCommit(hook: () => void | Promise<void>): void;
  /** Plain-JSON copy of the whole store. */
  export(): StoreSnapshot;
  /** Replaces the whole store with a snapshot; if it throws, the store is unchanged. */
  import(snapshot: StoreSnapshot): void;
}

/** Injection token of {@link Store}. */
export const Store = Symbol.for('agent-services/Store') as ServiceIdentifier<Store>;
