/**
 * Snapshots of a {@link SqliteStore} world: the rows read in one pass, and the world as last
 * imported, kept in memory until the next write.
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
 * The snapshot of the rows of one table scan, `[collection, id, partition, position, text]` each,
 * and of the collections' next positions (collections by name, rows by position). Each record is
 * parsed once into a fresh object the caller owns, as before.
 */
export function snapshotFromRows(positions: Array<[name: string, nextPosition: number]>, rows: Array<[string, string, string, number, string]>): StoreSnapshot {
  const byCollection = new Map<string, SnapshotRow[]>();
  for (const [name] of [...positions].sort((a, b) => byName(a[0], b[0]))) byCollection.set(name, []);
  let current: SnapshotRow[] | undefined;
  let currentName: string | undefined;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    if (row[0] !== currentName) {
      currentName = row[0];
      current = byCollection.get(currentName);
    }
    // A row of a collection without a next position cannot come from this store; export skips it as before.
    if (current) current.push([row[1], row[2], row[3], JSON.parse(row[4])]);
  }
  const next = new Map(positions);
  const collections: StoreSnapshot['collections'] = {};
  // The scan is in rowid order, which is position order inside a collection (rows are inserted,
  // and imported, in ascending position); checked anyway, sorted only if it ever differs.
  for (const [name, collectionRows] of byCollection) collections[name] = { nextPosition: next.get(name)!, rows: inPositionOrder(collectionRows) };
  return { collections };
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
