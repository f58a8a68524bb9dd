/**
 * Snapshots of a {@link SqliteStore} world: the rows read in one pass, the world as last imported
 * or exported kept in memory until the next write, and the stored JSON text of records this
 * module handed out, so that re-importing them skips `JSON.stringify`.
 */
import { deepFreeze } from '../../core/shared/json.js';
import type { StoreSnapshot } from '../../core/ports/store.js';

/** One row of a snapshot: id, partition, position, record. */
export type SnapshotRow = StoreSnapshot['collections'][string]['rows'][number];

/** A collection of a world: its next position and its rows in ascending position. */
export interface WorldCollection {
  nextPosition: number;
  rows: SnapshotRow[];
}

/** A whole world by collection name, rows in ascending position (the store keeps it while nothing is written). */
export type World = Map<string, WorldCollection>;

/**
 * The JSON text each record object was stored as, for records this module parsed from the
 * database and deep-froze: a frozen record cannot change, so an import of it writes this text
 * again instead of serialising it. Weak: an entry lives only as long as its record.
 */
const storedTexts = new WeakMap<object, string>();

/** The stored JSON text of `record` when it is a frozen record read from a database, else undefined. */
export function storedText(record: unknown): string | undefined {
  return record !== null && typeof record === 'object' ? storedTexts.get(record) : undefined;
}

/** The JSON text to store for `record` (`null` for a value JSON cannot hold). */
export function recordText(record: unknown): string {
  return storedText(record) ?? JSON.stringify(record) ?? 'null';
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `rows` itself when it is in ascending position, else a sorted copy (the caller's array is left as it is). */
export function inPositionOrder(rows: SnapshotRow[]): SnapshotRow[] {
  for (let i = 1; i < rows.length; i++) {
    if (rows[i - 1]![2] >= rows[i]![2]) return [...rows].sort((a, b) => a[2] - b[2]);
  }
  return rows;
}

/**
 * Builds the world from the rows of one table scan, `[collection, id, partition, position, text]`
 * each, and the collections' next positions. Each record is parsed once and deep-frozen (it is
 * handed out by every export until the next write, like MemoryStore's), and its text remembered.
 */
export function worldFromRows(positions: Array<[name: string, nextPosition: number]>, rows: Array<[string, string, string, number, string]>): World {
  const world: World = new Map();
  for (const [name, nextPosition] of [...positions].sort((a, b) => byName(a[0], b[0]))) world.set(name, { nextPosition, rows: [] });
  let current: WorldCollection | undefined;
  let currentName: string | undefined;
  for (let i = 0; i < rows.length; i++) {
    const [name, id, partition, position, text] = rows[i]!;
    if (name !== currentName) {
      currentName = name;
      current = world.get(name);
    }
    // A row of a collection without a next position cannot come from this store; export skips it as before.
    if (!current) continue;
    const record: unknown = JSON.parse(text);
    if (record !== null && typeof record === 'object') {
      deepFreeze(record);
      storedTexts.set(record, text);
    }
    current.rows.push([id, partition, position, record]);
  }
  // The scan is in rowid order, which is position order inside a collection (rows are inserted,
  // and imported, in ascending position); checked anyway, sorting only if it ever differs.
  for (const collection of world.values()) collection.rows = inPositionOrder(collection.rows);
  return world;
}

/**
 * The snapshot of `world`: fresh collections and row arrays (a caller may change them), the same
 * deep-frozen records (as MemoryStore's export hands out).
 */
export function snapshotOf(world: World): StoreSnapshot {
  const collections: StoreSnapshot['collections'] = {};
  for (const [name, collection] of world) {
    const from = collection.rows;
    const rows: SnapshotRow[] = new Array(from.length);
    for (let i = 0; i < from.length; i++) {
      const row = from[i]!;
      rows[i] = [row[0], row[1], row[2], deepFreeze(row[3])];
    }
    collections[name] = { nextPosition: collection.nextPosition, rows };
  }
  return { collections };
}

/** `world` with its collections in name order, as {@link snapshotOf} hands them out. */
export function sortedWorld(world: World): World {
  return new Map([...world].sort((a, b) => byName(a[0], b[0])));
}
