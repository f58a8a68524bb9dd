import type Database from 'better-sqlite3';
import type { PageQuery, PageResult, Positioned } from '../../core/ports/store.js';
import { recordKey } from './sqlite-import-base.js';

/** Puts back what a write changed in memory when its savepoint is rolled back. */
export type Undo = () => void;

/** Per-collection figures kept in memory so hot paths never count or scan rows. */
interface CollectionCache {
  /** Next position, or null when the collection does not exist; undefined until read. */
  next: number | null | undefined;
  total: number | undefined;
  partitions: Map<string, number>;
}

const NO_LIMIT = -1;
/** Records whose JSON text is kept in memory at most; the cache starts over when it is full. */
const CACHED_RECORDS = 50_000;

function pageLimit(limit: number): number {
  return limit >= 2 ** 31 - 1 ? NO_LIMIT : limit + 1;
}

/**
 * Record access of the SQLite store and the caches in front of it: records' JSON text by key (a
 * read skips SQLite), each collection's next position and counts (hot paths never count or scan).
 * Reads and writes run at once on the connection, inside whatever transaction is open; a write
 * pushes onto `undo` what puts its cached figures back should its savepoint roll back. Next
 * positions are kept in memory and written by {@link savePositions} when the group commits.
 */
export class SqliteRecords {
  private readonly caches = new Map<string, CollectionCache>();
  private readonly texts = new Map<string, string>();
  /** Collections whose next position changed since the last COMMIT. */
  private readonly dirty = new Set<string>();
  private readonly sql;

  /** `written(key)` is told of every write (the store notes it for group commit and its kept import). */
  constructor(
    db: Database.Database,
    private readonly written: (key: string) => void,
  ) {
    const prepare = (text: string) => db.prepare(text);
    this.sql = {
      get: prepare('SELECT record FROM records WHERE collection = ? AND id = ?').pluck(),
      insert: prepare('INSERT INTO records (collection, id, partition, position, record) VALUES (?, ?, ?, ?, ?)'),
      update: prepare('UPDATE records SET record = ? WHERE collection = ? AND id = ?'),
      remove: prepare('DELETE FROM records WHERE collection = ? AND id = ? RETURNING partition').pluck(),
      newest: prepare('SELECT record, position FROM records WHERE collection = ? AND partition = ? AND position < ? ORDER BY position DESC LIMIT ?').raw(),
      oldest: prepare('SELECT record, position FROM records WHERE collection = ? AND partition = ? AND position > ? ORDER BY position ASC LIMIT ?').raw(),
      all: prepare('SELECT record FROM records WHERE collection = ? ORDER BY position').pluck(),
      countPartition: prepare('SELECT COUNT(*) FROM records WHERE collection = ? AND partition = ?').pluck(),
      countAll: prepare('SELECT COUNT(*) FROM records WHERE collection = ?').pluck(),
      nextPosition: prepare('SELECT next_position FROM collections WHERE name = ?').pluck(),
      savePosition: prepare('INSERT INTO collections (name, next_position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET next_position = excluded.next_position'),
    };
  }

  /** Forgets every cached figure and text (after a rollback of a whole group, or an import). */
  forget(): void {
    this.caches.clear();
    this.texts.clear();
    this.dirty.clear();
  }

  /** Writes the next positions that changed since the last COMMIT (inside the group, before its COMMIT). */
  savePositions(): void {
    for (const name of this.dirty) {
      const next = this.caches.get(name)?.next;
      if (typeof next === 'number') this.sql.savePosition.run(name, next);
    }
    this.dirty.clear();
  }

  lastPosition(collection: string): number {
    return (this.cache(collection).next ?? 1) - 1;
  }

  get<T>(collection: string, id: string): T | undefined {
    const key = recordKey(collection, id);
    let text = this.texts.get(key);
    if (text === undefined) {
      text = this.sql.get.get(collection, id) as string | undefined;
      if (text === undefined) return undefined;
      this.remember(key, text);
    }
    return JSON.parse(text) as T;
  }

  page<T>(collection: string, query: PageQuery): PageResult<T> {
    const oldest = query.order === 'oldest';
    const rows = (
      oldest
        ? this.sql.oldest.all(collection, query.partition, query.after ?? 0, pageLimit(query.limit))
        : this.sql.newest.all(collection, query.partition, query.before ?? Number.MAX_SAFE_INTEGER, pageLimit(query.limit))
    ) as Array<[string, number]>;
    const hasMore = rows.length > query.limit;
    const count = hasMore ? query.limit : rows.length;
    const items: Positioned<T>[] = new Array(count);
    for (let i = 0; i < count; i++) items[i] = { record: JSON.parse(rows[i]![0]) as T, position: rows[i]![1] };
    return { items, hasMore };
  }

  all<T>(collection: string): T[] {
    return (this.sql.all.all(collection) as string[]).map((text) => JSON.parse(text) as T);
  }

  count(collection: string, partition?: string): number {
    const cache = this.cache(collection);
    if (partition === undefined) return (cache.total ??= this.sql.countAll.get(collection) as number);
    let count = cache.partitions.get(partition);
    if (count === undefined) cache.partitions.set(partition, (count = this.sql.countPartition.get(collection, partition) as number));
    return count;
  }

  /** @throws Error for a duplicate id in the collection */
  insert(undo: Undo[], collection: string, id: string, record: unknown, partition = ''): void {
    const cache = this.cache(collection);
    const previous = cache.next;
    const position = previous ?? 1;
    const text = JSON.stringify(record) ?? 'null';
    try {
      this.sql.insert.run(collection, id, partition, position, text);
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw new Error(`duplicate id ${id} in ${collection}`);
      throw error;
    }
    const key = recordKey(collection, id);
    this.written(key);
    cache.next = position + 1;
    this.dirty.add(collection);
    this.adjust(cache, partition, 1);
    this.remember(key, text);
    undo.push(() => {
      cache.next = previous;
      this.adjust(cache, partition, -1);
      this.texts.delete(key);
    });
  }

  /** @throws Error when the record does not exist */
  update(undo: Undo[], collection: string, id: string, record: unknown): void {
    const text = JSON.stringify(record) ?? 'null';
    const changes = this.sql.update.run(text, collection, id).changes;
    if (changes === 0) throw new Error(`no record ${id} in ${collection}`);
    const key = recordKey(collection, id);
    this.written(key);
    const previous = this.texts.get(key);
    this.remember(key, text);
    undo.push(() => this.recall(key, previous));
  }

  /** Removes a record; false when there was none. */
  remove(undo: Undo[], collection: string, id: string): boolean {
    const partition = this.sql.remove.get(collection, id) as string | undefined;
    if (partition === undefined) return false;
    const cache = this.cache(collection);
    this.adjust(cache, partition, -1);
    const key = recordKey(collection, id);
    this.written(key);
    const previous = this.texts.get(key);
    this.texts.delete(key);
    undo.push(() => {
      this.adjust(cache, partition, 1);
      this.recall(key, previous);
    });
    return true;
  }

  private cache(collection: string): CollectionCache {
    let cache = this.caches.get(collection);
    if (!cache) {
      const next = this.sql.nextPosition.get(collection) as number | undefined;
      cache = { next: next ?? null, total: undefined, partitions: new Map() };
      this.caches.set(collection, cache);
    }
    return cache;
  }

  private remember(key: string, text: string): void {
    if (this.texts.size >= CACHED_RECORDS) this.texts.clear();
    this.texts.set(key, text);
  }

  /** Puts back what the cache held for `key` before a write that is being undone. */
  private recall(key: string, previous: string | undefined): void {
    if (previous === undefined) this.texts.delete(key);
    else this.texts.set(key, previous);
  }

  /** Adds `delta` to the cached counts that are known (unknown ones are counted when first asked). */
  private adjust(cache: CollectionCache, partition: string, delta: number): void {
    if (cache.total !== undefined) cache.total += delta;
    const count = cache.partitions.get(partition);
    if (count !== undefined) cache.partitions.set(partition, count + delta);
  }
}
