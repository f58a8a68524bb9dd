import { AsyncLocalStorage } from 'node:async_hooks';
import { injectable } from '../../core/shared/di.js';
import { deepFreeze } from '../../core/shared/json.js';
import { runOutside } from './run-outside.js';
import { TransactionTurns, type Turn } from './transaction-turns.js';
import { UnitAdmission } from './unit-admission.js';
import { Collection, lowerBound, type Partition, type Row } from './memory-collection.js';
import type { PageQuery, PageResult, Positioned, Store, StoreSnapshot, StoreTransaction, StoreView } from '../../core/ports/store.js';

/**
 * The undo log of the running transaction: three slots per write (what to undo, the row, and the
 * record it held or its collection), not a closure per write: a book transfer makes eight writes.
 * One array serves every transaction (they never overlap), so its storage is not grown again from
 * empty for each of them; its slots are cleared when a transaction ends.
 */
type UndoKind = typeof UNDO_INSERT | typeof UNDO_CREATE | typeof UNDO_UPDATE | typeof UNDO_REMOVE;
const UNDO_ENTRY = 3;
/** An insert; its operand is the collection. */
const UNDO_INSERT = 0;
/** An insert that created its collection; its operand is the collection. */
const UNDO_CREATE = 1;
/** An update; its operand is the record the row held before. */
const UNDO_UPDATE = 2;
/** A removal; its operand is the collection. */
const UNDO_REMOVE = 3;

/** A durable unit in progress (see {@link Store.unit}). */
interface Unit {
  open: boolean;
  wrote: boolean;
  after: Array<() => void>;
  /** Outside work to run once the unit is durable (see {@link Store.outside}). */
  outside: Array<() => Promise<unknown>>;
}

const DEFAULT_PARTITION = '';
/** What a write answers: it was applied when called. */
const DONE: Promise<void> = Promise.resolve();
/** What a read that found nothing answers: one settled promise, not a new one per read. */
const NONE: Promise<undefined> = Promise.resolve(undefined);

/** The after-commit callbacks of a transaction that arranged none. */
const NO_CALLBACKS: ReadonlyArray<() => void> = Object.freeze([]);

/** What a count of nothing answers: one settled promise (a webhook check reads one per event). */
const ZERO: Promise<number> = Promise.resolve(0);

/** A count's answer as a promise (the shared {@link ZERO} for none). */
function counted(count: number): Promise<number> {
  return count === 0 ? ZERO : Promise.resolve(count);
}

/** Tombstones a partition may hold before it is compacted (and at least half its rows). */
const COMPACT_AFTER = 64;

function isSortedByPosition(rows: StoreSnapshot['collections'][string]['rows']): boolean {
  for (let i = 1; i < rows.length; i++) if (rows[i - 1]![2] >= rows[i]![2]) return false;
  return true;
}

/**
 * The default store: everything in memory. Writes are applied in place and recorded in an undo
 * log, so a throwing transaction is rolled back exactly and a committed one costs no copy.
 */
@injectable()
export class MemoryStore implements Store {
  private collections = new Map<string, Collection>();
  private readonly hooks: Array<() => void | Promise<void>> = [];
  private readonly units = new AsyncLocalStorage<Unit>();
  /** Undo log, its length, and after-apply and after-commit lists of the running transaction (transactions never overlap; the lists are made on first use). */
  private readonly undo: unknown[] = [];
  private undoLength = 0;
  private applied: Array<() => void> | null = null;
  private after: Array<() => void> | null = null;
  /** Partitions the running transaction removed rows from (compacted once it succeeds). */
  private shrunk: Partition[] = [];
  private readonly admission = new UnitAdmission(this.units);

  private readonly turns = new TransactionTurns();

  readonly view: StoreView = {
    get: (collection, id) => {
      // No transaction runs (the usual case of a read before one): read without a closure.
      if (this.turns.current !== null) return this.turns.read(() => this.get(collection, id));
      try {
        return this.read(collection, id);
      } catch (error) {
        return Promise.reject(error);
      }
    },
    page: (collection, query) => this.turns.read(() => this.page(collection, query)),
    all: (collection) => this.turns.read(() => this.all(collection)),
    count: (collection, partition) => this.turns.read(() => this.count(collection, partition)),
    lastPosition: (collection) => this.turns.read(() => this.lastPosition(collection)),
  };

  /**
   * What every transaction handle shares, built once: a hot path runs thousands of transactions a
   * second, so a handle is one object over this prototype holding its turn (a kept handle is then
   * known to be stale). Reads and writes are applied at once; a write that fails throws where it
   * is called. The methods read their turn from `this`, the handle they are called on.
   */
  private readonly handle: StoreTransaction & { turn: Turn | null } = (() => {
    const store = this;
    const check = (handle: { turn: Turn | null }): void => {
      if (handle.turn !== store.turns.current) throw new Error('store transaction handle used outside its transaction');
    };
    return {
      turn: null,
      get: (collection, id) => store.read(collection, id),
      page: (collection, query) => Promise.resolve(store.page(collection, query)),
      all: (collection) => Promise.resolve(store.all(collection)),
      count: (collection, partition) => counted(store.count(collection, partition)),
      lastPosition: (collection) => Promise.resolve(store.lastPosition(collection)),
      insert(collection, id, record, partition) {
        check(this);
        store.insert(collection, id, record, partition);
        return DONE;
      },
      update(collection, id, record) {
        check(this);
        store.update(collection, id, record);
        return DONE;
      },
      remove(collection, id) {
        check(this);
        return Promise.resolve(store.remove(collection, id));
      },
      // Numbered at once: transactions run one at a time, so the next position is this insert's
      // for good (one call where the event log made two, a read of the last position and an insert).
      insertNumbered(collection, field, record, partition) {
        check(this);
        const position = (store.collections.get(collection)?.nextPosition ?? 1) as never;
        record[field] = position;
        store.insert(collection, String(position), record, partition, true);
        return DONE;
      },
      lock() {
        check(this);
        return DONE;
      },
      afterCommit(callback) {
        check(this);
        (store.after ??= []).push(callback);
      },
      afterApply(callback) {
        check(this);
        (store.applied ??= []).push(callback);
      },
    };
  })();

  async transaction<T>(fn: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    // Only work outside an open unit waits for an exclusive section (a unit's own work must finish first).
    const admitted = this.admission.admitTransaction();
    if (admitted) await admitted;
    // One async frame for the turn, the function and the commit: a send runs several of these.
    const turn = this.turns.begin() ?? (await this.turns.queue());
    this.undoLength = 0;
    this.applied = null;
    this.after = null;
    if (this.shrunk.length > 0) this.shrunk = [];
    let result: T;
    let wrote = false;
    let after: ReadonlyArray<() => void> = NO_CALLBACKS;
    try {
      const tx = Object.create(this.handle) as StoreTransaction & { turn: Turn };
      tx.turn = turn;
      try {
        result = await this.turns.call(turn, fn, tx);
      } catch (error) {
        const undo = this.undo;
        for (let i = this.undoLength - UNDO_ENTRY; i >= 0; i -= UNDO_ENTRY) this.undoWrite(undo[i] as UndoKind, undo[i + 1] as Row, undo[i + 2]);
        throw error;
      }
      wrote = this.undoLength > 0;
      for (const partition of this.shrunk) compact(partition);
      // Set by the transaction function's afterApply and afterCommit calls (TypeScript still sees
      // the nulls above). Taken before the turn ends, when the next transaction may begin.
      const applied = this.applied as Array<() => void> | null;
      if (applied !== null) for (const callback of applied) callback();
      after = (this.after as Array<() => void> | null) ?? NO_CALLBACKS;
    } finally {
      this.clearUndo();
      this.turns.end();
    }
    const unit = this.units.getStore();
    if (unit?.open) {
      if (wrote) unit.wrote = true;
      for (const callback of after) unit.after.push(callback);
      return result;
    }
    if (wrote && this.hooks.length > 0) await this.committed(true, after);
    else for (const callback of after) callback();
    return result;
  }

  /** Records a write of the running transaction in the undo log. */
  private logWrite(kind: UndoKind, row: Row, operand: unknown): void {
    const undo = this.undo;
    const at = this.undoLength;
    undo[at] = kind;
    undo[at + 1] = row;
    undo[at + 2] = operand;
    this.undoLength = at + UNDO_ENTRY;
  }

  /** Empties the undo log's slots, so no row or record outlives its transaction there. */
  private clearUndo(): void {
    const undo = this.undo;
    for (let i = 0; i < this.undoLength; i++) undo[i] = undefined;
    this.undoLength = 0;
  }

  async unit<T>(work: () => Promise<T>, last?: (tx: StoreTransaction, result: T) => Promise<void>): Promise<T> {
    if (this.units.getStore()?.open) {
      const result = await work();
      if (last) await this.transaction((tx) => last(tx, result));
      return result;
    }
    const entered = this.admission.enterUnit();
    if (entered) await entered;
    const unit: Unit = { open: true, wrote: false, after: [], outside: [] };
    let result: T;
    try {
      result = await this.units.run(unit, work);
      if (last) await this.units.run(unit, () => this.transaction((tx) => last(tx, result)));
    } finally {
      unit.open = false;
      this.admission.leaveUnit();
      await this.committed(unit.wrote, unit.after);
      await this.units.exit(() => runOutside(unit.outside));
    }
    return result;
  }

  outside<T>(work: () => Promise<T>): Promise<T> | undefined {
    return this.admission.outside(work);
  }

  exclusive<T>(work: () => T | Promise<T>): Promise<T> {
    return this.admission.exclusive(work, async () => {
      // A transaction outside any unit may still be running (or queued): let it end first.
      if (!this.turns.busy) return false;
      await this.turns.read(() => undefined);
      return true;
    });
  }

  /** Runs the commit hooks (when something changed), then the after-commit callbacks. */
  private async committed(changed: boolean, after: ReadonlyArray<() => void>): Promise<void> {
    try {
      // Without hooks (no persistence) the wait is one tick, as Promise.all([]) would take.
      if (changed) await (this.hooks.length === 0 ? undefined : Promise.all(this.hooks.map((hook) => hook())));
    } finally {
      // The writes are committed even when a hook (persistence) fails, so their follow-up work
      // (event listeners, deliveries) must still run.
      for (const callback of after) callback();
    }
  }

  onCommit(hook: () => void | Promise<void>): void {
    this.hooks.push(hook);
  }

  export(): Promise<StoreSnapshot> {
    return this.turns.read(() => this.exportNow());
  }

  private exportNow(): StoreSnapshot {
    const collections: StoreSnapshot['collections'] = {};
    for (const name of [...this.collections.keys()].sort()) {
      const collection = this.collections.get(name)!;
      const rows: StoreSnapshot['collections'][string]['rows'] = [];
      for (const row of collection.values()) rows.push([row.id, row.partition, row.position, deepFreeze(row.record)]);
      // Map order is insertion order, which is position order unless an import brought rows in
      // another order; sorting a sorted array is one linear pass.
      if (!isSortedByPosition(rows)) rows.sort((a, b) => a[2] - b[2]);
      collections[name] = { nextPosition: collection.nextPosition, rows };
    }
    return { collections };
  }

  async import(snapshot: StoreSnapshot): Promise<void> {
    if (this.turns.busy) throw new Error('cannot import while a transaction runs: import inside store.exclusive()');
    if (this.admission.busy) throw new Error('cannot import while a durable unit is open: import inside store.exclusive()');
    const collections = new Map<string, Collection>();
    for (const [name, data] of Object.entries(snapshot.collections)) {
      const collection = new Collection(name);
      collection.nextPosition = data.nextPosition;
      const rows = isSortedByPosition(data.rows) ? data.rows : [...data.rows].sort((a, b) => a[2] - b[2]);
      for (const [id, partition, position, record] of rows) {
        if (position >= collection.nextPosition) throw new Error(`position ${position} of ${name}/${id} is not below nextPosition`);
        // Taken over, not copied, and frozen when first read: a record from export() is frozen
        // already, and freezing a parsed request body's records up front would cost more than
        // parsing them did.
        const rowsOf = collection.partition(partition);
        const row: Row = { id, partition: rowsOf.name, position, record, live: true, answer: undefined };
        if (!collection.add(row, rowsOf)) throw new Error(`duplicate id ${id} in ${name}`);
        addRow(rowsOf, row);
        rowsOf.live++;
      }
      collections.set(name, collection);
    }
    this.collections = collections;
  }

  private collection(name: string): Collection {
    let collection = this.collections.get(name);
    if (!collection) this.collections.set(name, (collection = new Collection(name)));
    return collection;
  }

  /** A read's answer, the row's kept one when its record has not changed since the last read. */
  private read<T>(collection: string, id: string): Promise<T | undefined> {
    const row = this.collections.get(collection)?.get(id);
    if (row === undefined) return NONE;
    return (row.answer ??= Promise.resolve(deepFreeze(row.record))) as Promise<T>;
  }

  private get<T>(collection: string, id: string): T | undefined {
    const row = this.collections.get(collection)?.get(id);
    return row === undefined ? undefined : (deepFreeze(row.record) as T);
  }

  private page<T>(collection: string, query: PageQuery): PageResult<T> {
    const rows = this.collections.get(collection)?.partitions.get(query.partition)?.rows ?? [];
    const items: Positioned<T>[] = [];
    if (query.order === 'oldest') {
      for (let index = query.after === undefined ? 0 : lowerBound(rows, query.after + 1); index < rows.length; index++) {
        const row = rows[index]!;
        if (!row.live) continue;
        if (items.length === query.limit) return { items, hasMore: true };
        items.push({ record: deepFreeze(row.record) as T, position: row.position });
      }
      return { items, hasMore: false };
    }
    for (let index = (query.before === undefined ? rows.length : lowerBound(rows, query.before)) - 1; index >= 0; index--) {
      const row = rows[index]!;
      if (!row.live) continue;
      if (items.length === query.limit) return { items, hasMore: true };
      items.push({ record: deepFreeze(row.record) as T, position: row.position });
    }
    return { items, hasMore: false };
  }

  private lastPosition(collection: string): number {
    return (this.collections.get(collection)?.nextPosition ?? 1) - 1;
  }

  private all<T>(collection: string): T[] {
    const rows = [...(this.collections.get(collection)?.values() ?? [])];
    return rows.sort((a, b) => a.position - b.position).map((row) => deepFreeze(row.record) as T);
  }

  private count(collection: string, partition?: string): number {
    const data = this.collections.get(collection);
    if (!data) return 0;
    return partition === undefined ? data.size : (data.partitions.get(partition)?.live ?? 0);
  }

  private insert(name: string, id: string, record: unknown, partitionName = DEFAULT_PARTITION, numbered = false): void {
    // A collection this insert brings into being is dropped again on rollback, so a rolled-back
    // transaction leaves no trace in export() (snapshots and their hashes).
    const created = !this.collections.has(name);
    const collection = this.collection(name);
    // Frozen when first read (get, page, all, export), not here: most records (events, ledger
    // lines) are written far more often than they are read.
    const partition = collection.partition(partitionName);
    // The partition's own name: the caller's string is often built per write (`owner/folder`).
    const row: Row = { id, partition: partition.name, position: collection.nextPosition, record, live: true, answer: undefined };
    if (!collection.add(row, partition, numbered)) throw new Error(`duplicate id ${id} in ${name}`);
    collection.nextPosition++;
    addRow(partition, row);
    partition.live++;
    this.logWrite(created ? UNDO_CREATE : UNDO_INSERT, row, collection);
  }

  private update(name: string, id: string, record: unknown): void {
    const row = this.collections.get(name)?.get(id);
    if (!row) throw new Error(`no record ${id} in ${name}`);
    this.logWrite(UNDO_UPDATE, row, row.record);
    row.record = record;
    row.answer = undefined;
  }

  private remove(name: string, id: string): boolean {
    const collection = this.collections.get(name);
    const row = collection?.get(id);
    if (!collection || !row) return false;
    const partition = collection.partitions.get(row.partition)!;
    row.live = false;
    partition.dead++;
    partition.live--;
    collection.delete(row);
    this.shrunk.push(partition);
    this.logWrite(UNDO_REMOVE, row, collection);
    return true;
  }

  /** Undoes one write of a transaction that threw (entries are undone newest first). */
  private undoWrite(kind: UndoKind, row: Row, operand: unknown): void {
    if (kind === UNDO_UPDATE) {
      row.record = operand;
      row.answer = undefined;
      return;
    }
    const collection = operand as Collection;
    const partition = collection.partitions.get(row.partition)!;
    if (kind === UNDO_REMOVE) {
      row.live = true;
      partition.dead--;
      partition.live++;
      collection.restore(row);
      return;
    }
    row.live = false;
    collection.delete(row);
    partition.live--;
    if (partition.rows[partition.rows.length - 1] === row) partition.rows.pop();
    if (collection.nextPosition === row.position + 1) collection.nextPosition = row.position;
    if (kind === UNDO_CREATE && this.collections.get(collection.name) === collection) this.collections.delete(collection.name);
  }
}

/**
 * Appends `row` to `partition`. A partition's first row gets an array of exactly one, where a push
 * would make room for 17: many partitions keep one row (a mail thread of one message).
 */
function addRow(partition: Partition, row: Row): void {
  if (partition.rows.length === 0) partition.rows = [row];
  else partition.rows.push(row);
}

/** Drops a partition's tombstones once they are many and at least half of it (amortised O(1) per removal). */
function compact(partition: Partition): void {
  if (partition.dead < COMPACT_AFTER || partition.dead * 2 < partition.rows.length) return;
  partition.rows = partition.rows.filter((row) => row.live);
  partition.dead = 0;
}
