/**
 * What lets a {@link SqliteStore} import the snapshot it imported last in time proportional to
 * what was written since, rather than to the world: a test fixture restored before every test,
 * a scenario rewound to its start, a snapshot taken and restored around an experiment.
 */
import type { StoreSnapshot } from '../../core/ports/store.js';
import type { SnapshotRow, World } from './sqlite-snapshot.js';

/** The key of a record in the store's caches and here: `collection \0 id`. */
export function recordKey(collection: string, id: string): string {
  return `${collection}\0${id}`;
}

/** One record to put back: its collection and id, and its row of the imported world (none: delete it). */
export interface RevertedRecord {
  collection: string;
  id: string;
  row: SnapshotRow | undefined;
}

/**
 * The world as last imported and the keys of the records written since (inserted, updated or
 * removed, including by transactions that were rolled back: a superset is harmless). Once more
 * records were written than a quarter of the world, a whole import is as cheap and the base is
 * given up ({@link touch} answers false).
 */
export class ImportBase {
  private readonly touched = new Set<string>();
  private readonly limit: number;
  /** Rows of the world by collection and id, built on the first revert. */
  private byId: Map<string, Map<string, SnapshotRow>> | undefined;

  constructor(readonly world: World) {
    let rows = 0;
    for (const collection of world.values()) rows += collection.rows.length;
    this.limit = Math.max(64, rows >> 2);
  }

  /** Notes a written record; false once so many were written that the base is not worth keeping. */
  touch(key: string): boolean {
    this.touched.add(key);
    return this.touched.size <= this.limit;
  }

  /**
   * Whether `snapshot` is this world, unchanged: the same collections and positions, and row by
   * row the same ids, partitions, positions and record objects (frozen by the import, so nobody
   * changed them in place since). Records are compared by reference, so a snapshot parsed anew
   * from JSON is never taken for it, however equal.
   */
  isSnapshotOf(snapshot: StoreSnapshot): boolean {
    let count = 0;
    for (const name in snapshot.collections) {
      count++;
      const kept = this.world.get(name);
      const data = snapshot.collections[name]!;
      if (!kept || kept.nextPosition !== data.nextPosition || kept.rows.length !== data.rows.length) return false;
      const rows = data.rows;
      for (let i = 0; i < rows.length; i++) {
        const given = rows[i]!;
        const own = kept.rows[i]!;
        if (given[0] !== own[0] || given[1] !== own[1] || given[2] !== own[2] || given[3] !== own[3]) return false;
      }
    }
    return count === this.world.size;
  }

  /** The records written since the import, each with its row of the world (or none), and then forgets them. */
  takeChanges(): { records: RevertedRecord[]; collections: Set<string> } {
    const byId = (this.byId ??= this.index());
    const records: RevertedRecord[] = [];
    const collections = new Set<string>();
    for (const key of this.touched) {
      const cut = key.indexOf('\0');
      const collection = key.slice(0, cut);
      const id = key.slice(cut + 1);
      collections.add(collection);
      records.push({ collection, id, row: byId.get(collection)?.get(id) });
    }
    this.touched.clear();
    return { records, collections };
  }

  private index(): Map<string, Map<string, SnapshotRow>> {
    const byId = new Map<string, Map<string, SnapshotRow>>();
    for (const [name, collection] of this.world) byId.set(name, new Map(collection.rows.map((row) => [row[0], row])));
    return byId;
  }
}
