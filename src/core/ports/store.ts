import type { ServiceIdentifier } from '../shared/di.js';

/** A stored record together with its insertion position (the key of keyset pagination). */
export interface Positioned<T> {
  record: T;
  position: number;
}

/** A page request over one partition of a collection, newest first unless `order` says otherwise. */
export interface PageQuery {
  /** Partition key, usually the owning agent's id. */
  partition: string;
  /** Newest first: only records inserted before this position (exclusive), the previous page's cursor. */
  before?: number;
  /** Oldest first: only records inserted after this position (exclusive). */
  after?: number;
  /** `newest` (default) or `oldest` first. */
  order?: 'newest' | 'oldest';
  /** How many records at most. */
  limit: number;
}

/** A page of records; `hasMore` tells whether more records follow in the page's order. */
export interface PageResult<T> {
  items: Positioned<T>[];
  hasMore: boolean;
}

/**
 * Read access to committed state. Every read answers a promise: a store may have to ask a database
 * server. Outside a transaction a read never sees a transaction that is still running. Inside one,
 * read through its handle: on the stores that run one transaction at a time a read through
 * `store.view` waits for the running transaction, so from inside it would wait for itself.
 */
export interface StoreView {
  /** The record `id` of `collection`, or undefined. */
  get<T>(collection: string, id: string): Promise<T | undefined>;
  /** A page of one partition; cost grows with the page, not with the collection. */
  page<T>(collection: string, query: PageQuery): Promise<PageResult<T>>;
  /** Every record of a collection in insertion order (for start-up work such as re-arming jobs). */
  all<T>(collection: string): Promise<T[]>;
  /** How many records a partition (or, without one, the whole collection) holds. */
  count(collection: string, partition?: string): Promise<number>;
  /** The position the newest insert into `collection` received (0 when none ever did); removals do not lower it. */
  lastPosition(collection: string): Promise<number>;
}

/**
 * Write access inside {@link Store.transaction}; reads see the transaction's own writes. Writes
 * answer promises too: a store may apply them at once (memory, SQLite) or send them to its
 * database before the next read or at commit (PostgreSQL), where a conflict then fails the
 * transaction. Every write must be awaited before the transaction function returns.
 */
export interface StoreTransaction extends StoreView {
  /** Adds a record under a new id at the newest position of its partition. */
  insert<T>(collection: string, id: string, record: T, partition?: string): Promise<void>;
  /** Replaces an existing record, keeping its position. */
  update<T>(collection: string, id: string, record: T): Promise<void>;
  /** Removes a record; false when there was none. */
  remove(collection: string, id: string): Promise<boolean>;
  /**
   * Locks the records `ids` of `collection` (existing or not yet) until the transaction's durable
   * unit ends, taking them in id order, so two transactions over the same money rows never
   * deadlock and never both read a balance before either writes it. Call it before reading the
   * rows it guards. Stores that run one transaction at a time (memory, SQLite) answer at once.
   */
  lock(collection: string, ids: readonly string[]): Promise<void>;
  /**
   * A hint that this transaction is about to read the records `ids` of `collection`: a store that
   * reads over a network may fetch them with its next round trip, so that their reads need none of
   * their own. It never changes an answer (a read still sees the record as a read would, and a
   * write checks it as usual). Stores without such a cost leave it out.
   */
  prefetch?(collection: string, ids: readonly string[]): void;
  /** Runs `callback` once this transaction is durable (outside effects: events, deliveries); dropped if it rolls back. */
  afterCommit(callback: () => void): void;
  /**
   * Runs `callback` as soon as this transaction is applied, before it is durable (in-memory state
   * derived from it, such as armed timers); dropped if it rolls back.
   */
  afterApply(callback: () => void): void;
  /**
   * Present on stores that run transactions concurrently (PostgreSQL): runs `work` as the last
   * step of this transaction's durable unit, just before its COMMIT, so a lock it takes is held
   * only for that moment (the event log numbers its events there, in commit order). Stores that
   * run one transaction at a time leave it out; their callers do the work at once.
   */
  beforeCommit?(work: (tx: StoreTransaction) => Promise<void>): void;
  /**
   * Present on the handle {@link beforeCommit} work receives on every store that offers
   * beforeCommit (PostgreSQL; the event log relies on it):
   * inserts `record` at the next position of `collection`, with that
   * position as its id and as `record[field]` (written first in the stored record), numbered in
   * the database with the COMMIT itself, without waiting for other writers: a reader that reads
   * only up to {@link SharedStore.settledPosition} never later sees a smaller position than one
   * it saw. The store sets `record[field]` once
   * the unit is durable, before its afterCommit callbacks run. The memory store, which runs one
   * transaction at a time, has it on every handle and numbers at once: `record[field]` is set
   * before the call answers (one call where a read of the last position and an insert took two).
   */
  insertNumbered?<T extends object>(collection: string, field: keyof T & string, record: T, partition?: string): Promise<void>;
}

/** The whole store as plain JSON, for snapshots and persistence. */
export interface StoreSnapshot {
  collections: Record<string, { nextPosition: number; rows: Array<[id: string, partition: string, position: number, record: unknown]> }>;
}

/** The runtime's own state a durable store keeps beside the records, in the same commits. */
export interface RuntimeState {
  service_domain: string;
  /** Service time in milliseconds since the Unix epoch. */
  clock_ms: number;
  /** The random generator's state (`Random.state()`). */
  random: string;
}

/** A store that saves the runtime's clock and random state in the same commits as the records. */
export interface RuntimeStateHost {
  /** The state saved with the last commit, or undefined for a store that never saved one. */
  load(): Promise<RuntimeState | undefined>;
  /**
   * Supplies the live state: it is read and saved with every commit from now on; `reset` is given
   * the last saved state when a commit fails (the host decides what of it to put back).
   */
  track(read: () => RuntimeState, reset: (saved: RuntimeState) => void): void;
  /** Saves the live state now (the clock moved without other writes); resolves once durable. */
  save(): Promise<void>;
}

/** What a listener of {@link SharedStore.onRemoteCommit} follows. */
export interface RemoteFollow {
  /** The collections whose commits it hears of ({@link CLOCK_CHANGED} for moves of the clock). */
  collections: readonly string[];
  /** How late it may hear of a commit, in ms (default 0: with each commit). */
  latencyMs?: number;
}

/** The name a shared store gives a clock move among the collections of a remote commit. */
export const CLOCK_CHANGED = '$clock';

/**
 * Ends a claim held by this process on a store shared with others (see {@link SharedStore.claim}).
 * `lazily`: the claim may end a moment later, with the process's next claims statement, for a
 * holder whose outcome is stored and durable (an Idempotency-Key's record): whoever asks for it
 * meanwhile finds that outcome either way.
 */
export type ClaimRelease = (options?: { lazily?: boolean }) => Promise<void>;

/**
 * What a store that several processes serve at once (PostgreSQL) offers beyond the port: claims
 * that hold across processes, word of other processes' commits, and the world's shared clock.
 */
export interface SharedStore {
  /**
   * Takes the named claim for this process, or answers undefined when another caller (here or in
   * another process) holds it. The claim ends when released or when this process dies.
   */
  claim(name: string): Promise<ClaimRelease | undefined>;
  /**
   * Takes the named claim, waiting while another caller (here or in another process) holds it;
   * a holder that dies gives it up. Use it only where the holder's work is bounded in time.
   */
  awaitClaim(name: string): Promise<ClaimRelease>;
  /**
   * {@link claim}, and the record `id` of `collection` read once the claim is decided, in one
   * round trip: when the claim was taken, nobody who writes that record only under the claim can
   * have written it since the read; when it was not, the record is as committed at that moment.
   */
  claimReading<T>(name: string, collection: string, id: string): Promise<{ release: ClaimRelease | undefined; record: T | undefined }>;
  /**
   * Calls `listener` after each commit of another process, with the collections it changed:
   * every commit, or with `follow` those that changed one of `follow.collections` (or, from an
   * import, everything: `*`), at most `follow.latencyMs` late (the store may then announce commits
   * in batches). A commit of nothing any process follows need not be announced at all.
   */
  onRemoteCommit(listener: (collections: ReadonlySet<string>) => void, follow?: RemoteFollow): void;
  /** The simulated clock as saved in the store (the furthest any process moved it), if any. */
  savedClock(): Promise<number | undefined>;
  /**
   * The largest position of `collection` at or below which every record numbered by
   * {@link StoreTransaction.insertNumbered} is committed or gone for good: a reader that reads up
   * to it never later meets a smaller number. Numbers are drawn without the writers waiting for
   * each other, so a number just above it may still be held by a transaction under way; the answer
   * never decreases.
   */
  settledPosition(collection: string): Promise<number>;
}

/**
 * Records by collection. Mutations happen only inside `transaction(fn)`, whose `fn` is async: the
 * memory and SQLite stores run one transaction at a time in arrival order (a simulated world stays
 * deterministic), a database store runs them concurrently under row locks ({@link
 * StoreTransaction.lock}) and serialisable isolation. No reader ever sees half of a transaction;
 * if `fn` throws, every write it made is undone.
 */
export interface Store {
  /** Committed state. */
  readonly view: StoreView;
  /**
   * Runs `fn` atomically; resolves with its result once it is durable (every commit hook done),
   * rejects with what `fn` threw after rolling its writes back. Inside a {@link Store.unit} it
   * resolves as soon as it is applied: the unit as a whole becomes durable.
   */
  transaction<T>(fn: (tx: StoreTransaction) => Promise<T>): Promise<T>;
  /**
   * Runs `work` as one durable unit: every transaction it starts, directly or through the calls it
   * awaits, becomes durable together with the others or not at all, and `last(tx, result)` runs as
   * its final transaction (e.g. the Idempotency-Key record of the answer). Resolves with `work`'s
   * result once the whole unit is durable; a unit inside a unit joins the outer one.
   * @throws what `work` threw (its applied transactions stay), or the commit's failure (none stay)
   */
  unit<T>(work: () => Promise<T>, last?: (tx: StoreTransaction, result: T) => Promise<void>): Promise<T>;
  /**
   * Runs outside work (a network call: a webhook POST, a carrier send) where it cannot hold a
   * durable unit open. Outside a unit it runs `work` at once and answers its promise. Inside an
   * open unit it answers undefined and runs `work` once the unit is durable, outside any unit; the
   * unit resolves only after `work` settled (so a request or job still waits for it), and `work`
   * never runs when the unit's commit fails, so no rollback follows an outside effect.
   */
  outside<T>(work: () => Promise<T>): Promise<T> | undefined;
  /**
   * Runs `work` alone: once every open unit has ended and every applied transaction is durable,
   * holding new units and transactions until it returns (for `import`: a restore never lands in
   * the middle of a request).
   * @throws the pending commit's failure (then `work` does not run), or what `work` threw
   */
  exclusive<T>(work: () => T | Promise<T>): Promise<T>;
  /** Registers work to run after each commit that changed something. */
  onCommit(hook: () => void | Promise<void>): void;
  /** Plain-JSON copy of the whole store. */
  export(): Promise<StoreSnapshot>;
  /**
   * Replaces the whole store with a snapshot; if it rejects, the store is unchanged. The records
   * are taken over as they are (frozen), not copied: the caller must not change them afterwards.
   */
  import(snapshot: StoreSnapshot): Promise<void>;
  /** Present on stores that keep the runtime's clock and random state in their own commits. */
  readonly runtimeState?: RuntimeStateHost;
  /** Present on stores that other processes serve at the same time. */
  readonly shared?: SharedStore;
  /** Waits for pending commits and releases the store's resources (files). */
  close?(): Promise<void>;
}

/** Injection token of {@link Store}. */
export const Store = Symbol.for('agent-services/Store') as ServiceIdentifier<Store>;
