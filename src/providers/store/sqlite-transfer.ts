import type Database from 'better-sqlite3';
import type { RuntimeState, StoreSnapshot } from '../../core/ports/store.js';
import { deepFreeze } from '../../core/shared/json.js';
import { ImportBase } from './sqlite-import-base.js';
import { INDEXES } from './sqlite-schema.js';
import { inPositionOrder, snapshotFromRows, snapshotOf, sortedWorld, type SnapshotRow, type World } from './sqlite-snapshot.js';

/** Rows one INSERT statement of an import carries (5 parameters each, under SQLite's limit). */
const IMPORT_BATCH = 64;
/** Records of a world kept in memory after an import, until the next write; a larger world is not kept. */
const KEPT_WORLD_RECORDS = 100_000;

/**
 * Import and export of the SQLite store's whole world. An export scans the table once; an import
 * replaces every row in one SQLite transaction. A world small enough is kept in memory after its
 * import: exported again from there while nothing was written, and imported again by rewriting
 * only the records written since ({@link ImportBase}). The store calls {@link written} for every
 * write and {@link forgetWorld} when a group it exported from is rolled back.
 */
export class SqliteTransfer {
  /**
   * The world as last imported, while nothing was written since: export() hands it out again
   * (its records taken over, as MemoryStore does) instead of reading and parsing every row.
   * Dropped by the first write.
   */
  private world: World | undefined;
  /**
   * The world as last imported and what was written since, kept across writes: importing that
   * same snapshot again rewrites only those records. Given up when too much was written.
   */
  private base: ImportBase | undefined;
  private readonly sql;

  /** `writeState` writes the runtime state inside the import's transaction. */
  constructor(
    private readonly db: Database.Database,
    private readonly writeState: (state: RuntimeState) => void,
  ) {
    const prepare = (text: string) => db.prepare(text);
    this.sql = {
      insert: prepare('INSERT INTO records (collection, id, partition, position, record) VALUES (?, ?, ?, ?, ?)'),
      // An import's rows, many per statement: a quarter less time than one statement per row.
      insertBatch: prepare(`INSERT INTO records (collection, id, partition, position, record) VALUES ${Array.from({ length: IMPORT_BATCH }, () => '(?, ?, ?, ?, ?)').join(', ')}`),
      erase: prepare('DELETE FROM records WHERE collection = ? AND id = ?'),
      dropPosition: prepare('DELETE FROM collections WHERE name = ?'),
      savePosition: prepare('INSERT INTO collections (name, next_position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET next_position = excluded.next_position'),
      collections: prepare('SELECT name, next_position FROM collections').raw(),
      // One pass over the table in rowid order, which is position order within a collection: no
      // sort, no index lookups (half the time of one ordered query per collection).
      scan: prepare('SELECT collection, id, partition, position, record FROM records ORDER BY rowid').raw(),
    };
  }

  /** Notes a record written since the last import: the kept world is stale, the base notes the key (or is given up). */
  written(key: string): void {
    this.world = undefined;
    if (this.base && !this.base.touch(key)) this.base = undefined;
  }

  /** Drops the kept world (an export taken while a group was open saw writes its rollback undid). */
  forgetWorld(): void {
    this.world = undefined;
  }

  /** The whole world; `savePending` first writes what the open group holds only in memory (next positions). */
  export(savePending: () => void): StoreSnapshot {
    if (this.world) return snapshotOf(this.world);
    savePending();
    return snapshotFromRows(this.sql.collections.all() as Array<[string, number]>, this.sql.scan.all() as Array<[string, string, string, number, string]>);
  }

  /** Replaces the world with `snapshot` (and writes the runtime `state` when given), in one SQLite transaction. */
  import(snapshot: StoreSnapshot, state: RuntimeState | undefined): void {
    if (this.base?.isSnapshotOf(snapshot)) return this.revert(this.base, state);
    this.base = undefined;
    const records = Object.values(snapshot.collections).reduce((sum, collection) => sum + collection.rows.length, 0);
    // A world small enough is kept in memory: exported again from there, and imported again
    // by rewriting only what was written since.
    const keep = records <= KEPT_WORLD_RECORDS;
    const world = this.replace(snapshot, records, keep, state);
    this.world = keep ? world : undefined;
    if (keep) this.base = new ImportBase(world);
  }

  /**
   * Replaces every row with the snapshot's (`rows` of them) in one SQLite transaction; answers
   * the world it wrote, collections by name. The records are taken over (the caller must not
   * change them); those of a world to `keep` are frozen, so that importing it again can trust
   * them by reference.
   */
  private replace(snapshot: StoreSnapshot, rows: number, keep: boolean, state: RuntimeState | undefined): World {
    const world: World = new Map();
    this.db.transaction(() => {
      this.db.exec('DELETE FROM records; DELETE FROM collections;');
      // Many rows load faster into a bare table whose indexes are then built by one sort each;
      // the unique indexes still refuse a duplicate id (and roll the whole import back).
      const rebuild = rows > 1000;
      if (rebuild) this.db.exec('DROP INDEX records_by_id; DROP INDEX records_by_page;');
      const batch: unknown[] = new Array(IMPORT_BATCH * 5);
      for (const [name, data] of Object.entries(snapshot.collections)) {
        // Inserted in ascending position, so rowid order is position order (export scans by rowid).
        const rows = inPositionOrder(data.rows);
        const kept: SnapshotRow[] = new Array(rows.length);
        for (let i = 0; i < rows.length; i++) {
          const [id, partition, position, record] = rows[i]!;
          if (!(position < data.nextPosition)) throw new Error(`position ${position} of ${name}/${id} is not below nextPosition`);
          kept[i] = [id, partition, position, keep ? deepFreeze(record) : record];
        }
        let i = 0;
        for (; i + IMPORT_BATCH <= rows.length; i += IMPORT_BATCH) {
          for (let j = 0; j < IMPORT_BATCH; j++) {
            const [id, partition, position, record] = rows[i + j]!;
            const k = j * 5;
            batch[k] = name;
            batch[k + 1] = id;
            batch[k + 2] = partition;
            batch[k + 3] = position;
            batch[k + 4] = JSON.stringify(record) ?? 'null';
          }
          this.sql.insertBatch.run(batch);
        }
        for (; i < rows.length; i++) {
          const [id, partition, position, record] = rows[i]!;
          this.sql.insert.run(name, id, partition, position, JSON.stringify(record) ?? 'null');
        }
        this.sql.savePosition.run(name, data.nextPosition);
        world.set(name, { nextPosition: data.nextPosition, rows: kept });
      }
      if (rebuild) this.db.exec(INDEXES);
      if (state) this.writeState(state);
    })();
    return sortedWorld(world);
  }

  /**
   * Puts the world of `base` back by rewriting only the records written since it was imported
   * (each deleted, and inserted again from the world where it has a row) and the next positions
   * of their collections, in one SQLite transaction. Rows put back get new rowids, so a later
   * export's scan finds some collections out of position order and sorts them.
   */
  private revert(base: ImportBase, state: RuntimeState | undefined): void {
    const { records, collections } = base.takeChanges();
    try {
      this.db.transaction(() => {
        for (const { collection, id } of records) this.sql.erase.run(collection, id);
        for (const { collection, row } of records) {
          if (row) this.sql.insert.run(collection, row[0], row[1], row[2], JSON.stringify(row[3]) ?? 'null');
        }
        for (const name of collections) {
          const kept = base.world.get(name);
          if (kept) this.sql.savePosition.run(name, kept.nextPosition);
          else this.sql.dropPosition.run(name);
        }
        if (state) this.writeState(state);
      })();
    } catch (error) {
      // Nothing changed, but what was written since the import is no longer known.
      this.base = undefined;
      throw error;
    }
    this.world = base.world;
  }
}
