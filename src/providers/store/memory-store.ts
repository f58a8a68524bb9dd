import { injectable } from '../../core/shared/di.js';
import { deepFreeze } from '../../core/shared/json.js';
import type {
  PageQuery,
  PageResult,
  Positioned,
  Store,
  StoreSnapshot,
  StoreTransaction,
  StoreView,
} from '../../core/ports/store.js';

interface Row {
  id: string;
  partition: string;
  position: number;
  record: unknown;
  live: boolean;
}

class Collection {
  readonly rows = new Map<string, Row>();
  /** Rows of each partition in ascending position; removed rows stay as tombstones (live=false). */
  readonly partitions = new Map<string, Row[]>();
  readonly liveCounts = new Map<string, number>();
  nextPosition = 1;

  addToPartition(row: Row): void {
    let list = this.partitions.get(row.partition);
    if (!list) this.partitions.set(row.partition, (list = []));
    list.push(row);
  }

  adjustCount(partition: string, delta: number): void {
    this.liveCounts.set(partition, (this.liveCounts.get(partition) ?? 0) + delta);
  }
}

const DEFAULT_PARTITION = '';

/** Index of the first row whose position is >= `position` (rows sorted ascending). */
function lowerBound(rows: Row[], position: number): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (rows[mid]!.position < position) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * The default store: everything in memory. Writes are applied in place and recorded in an undo
 * log, so a throwing transaction is rolled back exactly and a committed one costs no copy.
 */
@injectable()
export class MemoryStore implements Store {
  private collections = new Map<string, Collection>();
  private readonly hooks: Array<() => void | Promise<void>> = [];
  private inTransaction = false;
  /** Undo and after-commit lists of the running transaction (transactions never overlap). */
  private undo: Array<() => void> = [];
  private after: Array<() => void> = [];

  readonly view: StoreView = {
    get: (collection, id) => this.get(collection, id),
    page: (collection, query) => this.page(collection, query),
    all: (collection) => this.all(collection),
    count: (collection, partition) => this.count(collection, partition),
  };

  /** The one transaction handle, built once: a hot path runs thousands of transactions a second. */
  private readonly tx: StoreTransaction = {
    ...this.view,
    insert: (collection, id, record, partition) => this.insert(this.writableUndo(), collection, id, record, partition),
    update: (collection, id, record) => this.update(this.writableUndo(), collection, id, record),
    remove: (collection, id) => this.remove(this.writableUndo(), collection, id),
    afterCommit: (callback) => void (this.writableUndo(), this.after.push(callback)),
  };

  /** The running transaction's undo log; a handle kept past its transaction must not write. */
  private writableUndo(): Array<() => void> {
    if (!this.inTransaction) throw new Error('store transaction handle used outside its transaction');
    return this.undo;
  }

  async transaction<T>(fn: (tx: StoreTransaction) => T): Promise<T> {
    if (this.inTransaction) throw new Error('store transactions do not nest');
    const undo: Array<() => void> = (this.undo = []);
    const after: Array<() => void> = (this.after = []);
    const tx = this.tx;
    this.inTransaction = true;
    let result: T;
    try {
      result = fn(tx);
      if (result !== null && typeof (result as { then?: unknown })?.then === 'function') {
        throw new TypeError('store transaction functions must be synchronous');
      }
    } catch (error) {
      for (let i = undo.length - 1; i >= 0; i--) undo[i]!();
      throw error;
    } finally {
      this.inTransaction = false;
    }
    try {
      if (undo.length > 0) await Promise.all(this.hooks.map((hook) => hook()));
    } finally {
      // The writes are committed even when a hook (persistence) fails, so their follow-up work
      // (arming jobs, event listeners) must still run.
      for (const callback of after) callback();
    }
    return result;
  }

  onCommit(hook: () => void | Promise<void>): void {
    this.hooks.push(hook);
  }

  export(): StoreSnapshot {
    const collections: StoreSnapshot['collections'] = {};
    for (const name of [...this.collections.keys()].sort()) {
      const collection = this.collections.get(name)!;
      const rows = [...collection.rows.values()].sort((a, b) => a.position - b.position);
      collections[name] = {
        nextPosition: collection.nextPosition,
        rows: rows.map((row) => [row.id, row.partition, row.position, row.record]),
      };
    }
    return { collections };
  }

  import(snapshot: StoreSnapshot): void {
    if (this.inTransaction) throw new Error('cannot import inside a transaction');
    const collections = new Map<string, Collection>();
    for (const [name, data] of Object.entries(snapshot.collections)) {
      const collection = new Collection();
      collection.nextPosition = data.nextPosition;
      for (const [id, partition, position, record] of [...data.rows].sort((a, b) => a[2] - b[2])) {
        const row: Row = { id, partition, position, record: deepFreeze(structuredClone(record)), live: true };
        collection.rows.set(id, row);
        collection.addToPartition(row);
        collection.adjustCount(partition, 1);
      }
      collections.set(name, collection);
    }
    this.collections = collections;
  }

  private collection(name: string): Collection {
    let collection = this.collections.get(name);
    if (!collection) this.collections.set(name, (collection = new Collection()));
    return collection;
  }

  private get<T>(collection: string, id: string): T | undefined {
    return this.collections.get(collection)?.rows.get(id)?.record as T | undefined;
  }

  private page<T>(collection: string, query: PageQuery<T>): PageResult<T> {
    const rows = this.collections.get(collection)?.partitions.get(query.partition) ?? [];
    const items: Positioned<T>[] = [];
    let index = (query.before === undefined ? rows.length : lowerBound(rows, query.before)) - 1;
    for (; index >= 0; index--) {
      const row = rows[index]!;
      if (!row.live) continue;
      const record = row.record as T;
      if (query.where && !query.where(record)) continue;
      if (items.length === query.limit) return { items, hasMore: true };
      items.push({ record, position: row.position });
    }
    return { items, hasMore: false };
  }

  private all<T>(collection: string): T[] {
    const rows = [...(this.collections.get(collection)?.rows.values() ?? [])];
    return rows.sort((a, b) => a.position - b.position).map((row) => row.record as T);
  }

  private count(collection: string, partition?: string): number {
    const data = this.collections.get(collection);
    if (!data) return 0;
    return partition === undefined ? data.rows.size : (data.liveCounts.get(partition) ?? 0);
  }

  private insert(undo: Array<() => void>, name: string, id: string, record: unknown, partition = DEFAULT_PARTITION): void {
    // A collection this insert brings into being is dropped again on rollback, so a rolled-back
    // transaction leaves no trace in export() (snapshots and their hashes).
    const created = !this.collections.has(name);
    const collection = this.collection(name);
    if (collection.rows.has(id)) throw new Error(`duplicate id ${id} in ${name}`);
    const row: Row = { id, partition, position: collection.nextPosition++, record: deepFreeze(record), live: true };
    collection.rows.set(id, row);
    collection.addToPartition(row);
    collection.adjustCount(partition, 1);
    undo.push(() => {
      row.live = false;
      collection.rows.delete(id);
      collection.adjustCount(partition, -1);
      const list = collection.partitions.get(partition)!;
      if (list[list.length - 1] === row) list.pop();
      if (collection.nextPosition === row.position + 1) collection.nextPosition = row.position;
      if (created && this.collections.get(name) === collection) this.collections.delete(name);
    });
  }

  private update(undo: Array<() => void>, name: string, id: string, record: unknown): void {
    const row = this.collections.get(name)?.rows.get(id);
    if (!row) throw new Error(`no record ${id} in ${name}`);
    const previous = row.record;
    row.record = deepFreeze(record);
    undo.push(() => {
      row.record = previous;
    });
  }

  private remove(undo: Array<() => void>, name: string, id: string): boolean {
    const collection = this.collections.get(name);
    const row = collection?.rows.get(id);
    if (!collection || !row) return false;
    row.live = false;
    collection.rows.delete(id);
    collection.adjustCount(row.partition, -1);
    undo.push(() => {
      row.live = true;
      collection.rows.set(id, row);
      collection.adjustCount(row.partition, 1);
    });
    return true;
  }
}
