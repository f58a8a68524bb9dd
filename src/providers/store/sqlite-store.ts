import { AsyncLocalStorage } from 'node:async_hooks';
import Database from 'better-sqlite3';
import type { PageQuery, PageResult, Positioned, RuntimeState, RuntimeStateHost, Store, StoreSnapshot, StoreTransaction, StoreView } from '../../core/ports/store.js';
import { runOutside } from './run-outside.js';
import { TransactionTurns } from './transaction-turns.js';
import { UnitAdmission } from './unit-admission.js';
import { INDEXES, META } from './sqlite-schema.js';
import { openDatabase, type SqliteOpenOptions } from './sqlite-open.js';
import { deepFreeze } from '../../core/shared/json.js';
import { ImportBase, recordKey } from './sqlite-import-base.js';
import { inPositionOrder, snapshotFromRows, snapshotOf, sortedWorld, type SnapshotRow, type World } from './sqlite-snapshot.js';

/** Options of {@link SqliteStore.open}. */
export interface SqliteStoreOptions extends SqliteOpenOptions {
  /** Receives errors thrown by after-commit callbacks (default: written to stderr). */
  onError?: (error: unknown) => void;
}

/**
 * Transactions committed together by one SQLite COMMIT (one fsync): every transaction applied
 * while the group is open joins it, and each resolves only once the group's COMMIT is done.
 */
interface Group {
  /** Open units that applied transactions in this group: it cannot commit before they close. */
  members: Set<Unit>;
  /** The event-loop turn that opened the group has passed: commit as soon as no member is open. */
  due: boolean;
  wrote: boolean;
  after: Array<() => void>;
  done: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** A durable unit in progress (see {@link Store.unit}). */
interface Unit {
  open: boolean;
  group: Group | null;
  /** Outside work to run once the unit is durable (see {@link Store.outside}). */
  outside: Array<() => Promise<unknown>>;
}

type Undo = () => void;

/** Per-collection figures kept in memory so hot paths never count or scan rows. */
interface CollectionCache {
  /** Next position, or null when the collection does not exist; undefined until read. */
  next: number | null | undefined;
  total: number | undefined;
  partitions: Map<string, number>;
}

const NO_LIMIT = -1;
/** What a write answers: it was applied when called. */
const DONE: Promise<void> = Promise.resolve();
/** Rows one INSERT statement of an import carries (5 parameters each, under SQLite's limit). */
const IMPORT_BATCH = 64;
/** Records whose JSON text is kept in memory at most; the cache starts over when it is full. */
const CACHED_RECORDS = 50_000;
/** Records of a world kept in memory after an import, until the next write; a larger world is not kept. */
const KEPT_WORLD_RECORDS = 100_000;

function pageLimit(limit: number): number {
  return limit >= 2 ** 31 - 1 ? NO_LIMIT : limit + 1;
}

function sameState(a: RuntimeState | undefined, b: RuntimeState): boolean {
  return a !== undefined && a.clock_ms === b.clock_ms && a.random === b.random && a.service_domain === b.service_domain;
}

/**
 * The durable store: every record in one SQLite table (better-sqlite3, WAL, `synchronous=FULL`).
 *
 * Each store transaction is a SQLite savepoint, so a throwing one is rolled back exactly; the
 * transactions applied during one event-loop turn form a group that one COMMIT (one fsync) makes
 * durable, and each is answered only after that COMMIT (group commit). A {@link Store.unit} keeps
 * the group open until the unit ends, so all of its transactions (a request's effect and its
 * Idempotency-Key record, a job's effect and its removal) are durable together or not at all.
 * The runtime's clock and random state are written by the same COMMIT ({@link RuntimeStateHost}).
 *
 * Reads see applied transactions before their group's fsync; only answers wait for it.
 */
export class SqliteStore implements Store {
  private readonly db: Database.Database;
  private readonly units = new AsyncLocalStorage<Unit>();
  private readonly hooks: Array<() => void | Promise<void>> = [];
  private readonly caches = new Map<string, CollectionCache>();
  /** JSON text of records read or written lately, by `collection \0 id`: a read skips SQLite. */
  private readonly texts = new Map<string, string>();
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
  private readonly onError: (error: unknown) => void;
  private group: Group | null = null;
  /** Transactions waiting for a sealed group to commit. */
  private waiting: Array<() => void> = [];
  private readonly turns = new TransactionTurns();
  /** A transaction's savepoint is open: the group cannot COMMIT now. */
  private applying = false;
  private closed = false;
  private readonly admission = new UnitAdmission(this.units);
  private undo: Undo[] = [];
  private applied: Array<() => void> = [];
  private after: Array<() => void> = [];
  private wrote = false;
  /** Collections whose next position changed since the last COMMIT. */
  private readonly dirty = new Set<string>();
  private tracked: { read: () => RuntimeState; reset: (saved: RuntimeState) => void } | undefined;
  private savedState: RuntimeState | undefined;
  private readonly sql;

  private constructor(
    readonly filename: string,
    db: Database.Database,
    options: SqliteStoreOptions,
  ) {
    this.db = db;
    this.onError = options.onError ?? ((error) => process.stderr.write(`store: after-commit callback failed: ${(error as Error)?.stack ?? String(error)}\n`));
    const prepare = (text: string) => db.prepare(text);
    this.sql = {
      begin: prepare('BEGIN'),
      commit: prepare('COMMIT'),
      rollback: prepare('ROLLBACK'),
      savepoint: prepare('SAVEPOINT tx'),
      release: prepare('RELEASE tx'),
      rollbackTo: prepare('ROLLBACK TO tx'),
      get: prepare('SELECT record FROM records WHERE collection = ? AND id = ?').pluck(),
      insert: prepare('INSERT INTO records (collection, id, partition, position, record) VALUES (?, ?, ?, ?, ?)'),
      // An import's rows, many per statement: a quarter less time than one statement per row.
      insertBatch: prepare(`INSERT INTO records (collection, id, partition, position, record) VALUES ${Array.from({ length: IMPORT_BATCH }, () => '(?, ?, ?, ?, ?)').join(', ')}`),
      update: prepare('UPDATE records SET record = ? WHERE collection = ? AND id = ?'),
      erase: prepare('DELETE FROM records WHERE collection = ? AND id = ?'),
      dropPosition: prepare('DELETE FROM collections WHERE name = ?'),
      remove: prepare('DELETE FROM records WHERE collection = ? AND id = ? RETURNING partition').pluck(),
      newest: prepare('SELECT record, position FROM records WHERE collection = ? AND partition = ? AND position < ? ORDER BY position DESC LIMIT ?').raw(),
      oldest: prepare('SELECT record, position FROM records WHERE collection = ? AND partition = ? AND position > ? ORDER BY position ASC LIMIT ?').raw(),
      all: prepare('SELECT record FROM records WHERE collection = ? ORDER BY position').pluck(),
      countPartition: prepare('SELECT COUNT(*) FROM records WHERE collection = ? AND partition = ?').pluck(),
      countAll: prepare('SELECT COUNT(*) FROM records WHERE collection = ?').pluck(),
      nextPosition: prepare('SELECT next_position FROM collections WHERE name = ?').pluck(),
      savePosition: prepare('INSERT INTO collections (name, next_position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET next_position = excluded.next_position'),
      collections: prepare('SELECT name, next_position FROM collections').raw(),
      // One pass over the table in rowid order, which is position order within a collection: no
      // sort, no index lookups (half the time of one ordered query per collection).
      scan: prepare('SELECT collection, id, partition, position, record FROM records ORDER BY rowid').raw(),
      meta: prepare('SELECT key, value FROM meta').raw(),
      setMeta: prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
    };
    this.savedState = this.readState();
  }

  /**
   * Opens (creating it when missing) the database `filename` for this process alone.
   * @throws StoreOpenError with a message for people: locked by another process, not a database,
   *   corrupt, written by a newer version, no space left
   */
  static open(filename: string, options: SqliteStoreOptions = {}): SqliteStore {
    return new SqliteStore(filename, openDatabase(filename, options), options);
  }

  readonly view: StoreView = {
    get: (collection, id) => this.turns.read(() => this.get(collection, id)),
    page: (collection, query) => this.turns.read(() => this.page(collection, query)),
    all: (collection) => this.turns.read(() => this.all(collection)),
    count: (collection, partition) => this.turns.read(() => this.count(collection, partition)),
    lastPosition: (collection) => this.turns.read(() => this.lastPosition(collection)),
  };

  /** The transaction handle: reads and writes run at once on the connection, a failed write throws where it is called. */
  private readonly tx: StoreTransaction = {
    get: (collection, id) => Promise.resolve(this.get(collection, id)),
    page: (collection, query) => Promise.resolve(this.page(collection, query)),
    all: (collection) => Promise.resolve(this.all(collection)),
    count: (collection, partition) => Promise.resolve(this.count(collection, partition)),
    lastPosition: (collection) => Promise.resolve(this.lastPosition(collection)),
    insert: (collection, id, record, partition) => (this.insert(this.writable(), collection, id, record, partition), DONE),
    update: (collection, id, record) => (this.update(this.writable(), collection, id, record), DONE),
    remove: (collection, id) => Promise.resolve(this.remove(this.writable(), collection, id)),
    lock: () => (this.writable(), DONE),
    afterCommit: (callback) => void (this.writable(), this.after.push(callback)),
    afterApply: (callback) => void (this.writable(), this.applied.push(callback)),
  };

  readonly runtimeState: RuntimeStateHost = {
    load: () => Promise.resolve(this.savedState),
    track: (read, reset) => {
      this.tracked = { read, reset };
    },
    save: () => {
      if (!this.tracked || this.closed) return Promise.resolve();
      const unit = this.units.getStore();
      if (unit?.open) {
        // Inside a unit (a keyed clock move) the unit's own commit saves the state; waiting for
        // it here would wait for the unit to end, which waits for this.
        if (!unit.group) this.join(unit, this.group ?? this.open());
        return Promise.resolve();
      }
      return (this.group ?? this.open()).done;
    },
  };

  async transaction<T>(fn: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    if (this.turns.inside()) throw new Error('store transactions do not nest');
    const unit = this.admission.current();
    for (;;) {
      // Work outside an open unit waits for an exclusive section (a unit's own work must finish first).
      const admitted = this.admission.admitTransaction();
      if (admitted) await admitted;
      // A sealed group takes no new transactions except those of its own open units, so a stream
      // of arrivals cannot keep it from committing.
      if (this.sealed() && !(unit && unit.group === this.group)) await new Promise<void>((resolve) => this.waiting.push(resolve));
      else break;
    }
    const { group, result, wrote } = await this.turns.run(async () => {
      this.assertOpen();
      if (unit?.group && unit.group !== this.group) throw new Error("the durable unit's commit failed; it takes no more transactions");
      const group = this.group ?? this.open();
      if (unit && !unit.group) this.join(unit, group);
      return { group, ...(await this.apply(group, fn)) };
    });
    // The group's COMMIT waits while a transaction runs; this one just ended.
    this.maybeCommit(group);
    if (unit || !wrote) return result;
    await group.done;
    return result;
  }

  async unit<T>(work: () => Promise<T>, last?: (tx: StoreTransaction, result: T) => Promise<void>): Promise<T> {
    if (this.units.getStore()?.open) {
      const result = await work();
      if (last) await this.transaction((tx) => last(tx, result));
      return result;
    }
    const entered = this.admission.enterUnit();
    if (entered) await entered;
    const unit: Unit = { open: true, group: null, outside: [] };
    let outcome: { ok: true; value: T } | { ok: false; error: unknown };
    try {
      const value = await this.units.run(unit, work);
      if (last) await this.units.run(unit, () => this.transaction((tx) => last(tx, value)));
      outcome = { ok: true, value };
    } catch (error) {
      outcome = { ok: false, error };
    } finally {
      unit.open = false;
      const group = unit.group;
      if (group) {
        group.members.delete(unit);
        this.maybeCommit(group);
      }
      this.admission.leaveUnit();
    }
    // What the unit applied commits (or fails) as a whole; its answer waits for that. Its outside
    // work runs only once that is durable: a failed commit throws here and skips it.
    if (unit.group) await unit.group.done;
    if (unit.outside.length > 0) await this.units.exit(() => runOutside(unit.outside));
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  outside<T>(work: () => Promise<T>): Promise<T> | undefined {
    return this.admission.outside(work);
  }

  exclusive<T>(work: () => T | Promise<T>): Promise<T> {
    return this.admission.exclusive(work, async () => {
      this.assertOpen();
      if (this.turns.busy) {
        // A transaction outside any unit is still running (or queued): let it end first.
        await this.turns.read(() => undefined);
        return true;
      }
      const group = this.group;
      if (!group) return false;
      // No unit holds it: commit now rather than at the end of the turn; a failure rejects here.
      if (group.members.size === 0) this.commit(group);
      await group.done;
      return true;
    });
  }

  onCommit(hook: () => void | Promise<void>): void {
    this.hooks.push(hook);
  }

  export(): Promise<StoreSnapshot> {
    return this.turns.read(() => this.exportNow());
  }

  private exportNow(): StoreSnapshot {
    this.assertOpen();
    if (this.world) return snapshotOf(this.world);
    // Positions of the open group are written at its COMMIT; export reads the table.
    if (this.group) this.savePositions();
    return snapshotFromRows(this.sql.collections.all() as Array<[string, number]>, this.sql.scan.all() as Array<[string, string, string, number, string]>);
  }

  async import(snapshot: StoreSnapshot): Promise<void> {
    this.assertOpen();
    if (this.turns.busy) throw new Error('cannot import while a transaction runs: import inside store.exclusive()');
    // Run through exclusive(): nothing may be pending, or the import would take a half-done
    // request's writes into (or out of) the restored world.
    if (this.group || this.admission.busy) throw new Error('cannot import while writes are pending: import inside store.exclusive()');
    const state = this.tracked?.read();
    if (this.base?.isSnapshotOf(snapshot)) this.revert(this.base, state);
    else {
      this.base = undefined;
      const records = Object.values(snapshot.collections).reduce((sum, collection) => sum + collection.rows.length, 0);
      // A world small enough is kept in memory: exported again from there, and imported again
      // by rewriting only what was written since.
      const keep = records <= KEPT_WORLD_RECORDS;
      const world = this.replace(snapshot, records, keep, state);
      this.world = keep ? world : undefined;
      if (keep) this.base = new ImportBase(world);
    }
    this.caches.clear();
    this.texts.clear();
    this.dirty.clear();
    if (state) this.savedState = state;
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

  /** Notes a record written since the last import (giving the import's base up when too much was). */
  private touch(key: string): void {
    if (this.base && !this.base.touch(key)) this.base = undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    while (this.group) await this.group.done.catch(() => undefined);
    this.closed = true;
    this.db.close();
  }

  /** Bytes of the database and its write-ahead log, for measurements. */
  sizes(): { pageBytes: number } {
    return { pageBytes: (this.db.pragma('page_count', { simple: true }) as number) * (this.db.pragma('page_size', { simple: true }) as number) };
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`the store ${this.filename} is closed`);
  }

  private writable(): Undo[] {
    if (!this.turns.inside()) throw new Error('store transaction handle used outside its transaction');
    return this.undo;
  }

  private sealed(): boolean {
    return this.group !== null && this.group.due && this.group.members.size > 0;
  }

  /** Opens a group: BEGIN now, COMMIT once this event-loop turn has passed. */
  private open(): Group {
    this.sql.begin.run();
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Whoever waits on the group sees the failure; nobody waiting is not an unhandled rejection.
    done.catch(() => undefined);
    const group: Group = { members: new Set(), due: false, wrote: false, after: [], done, resolve, reject };
    this.group = group;
    // Outside any unit's context, so the COMMIT and its callbacks belong to no request.
    this.units.exit(() =>
      setImmediate(() => {
        group.due = true;
        this.maybeCommit(group);
      }),
    );
    return group;
  }

  private join(unit: Unit, group: Group): void {
    unit.group = group;
    group.members.add(unit);
  }

  private maybeCommit(group: Group): void {
    // Never while a transaction runs: its savepoint is still open.
    if (group === this.group && group.due && group.members.size === 0 && !this.applying) this.commit(group);
  }

  /** Applies `fn` as a savepoint of `group`, in the running turn. @throws what `fn` threw, after undoing its writes */
  private async apply<T>(group: Group, fn: (tx: StoreTransaction) => Promise<T>): Promise<{ result: T; wrote: boolean }> {
    const undo: Undo[] = (this.undo = []);
    const applied: Array<() => void> = (this.applied = []);
    const after: Array<() => void> = (this.after = []);
    this.wrote = false;
    let result: T;
    try {
      this.sql.savepoint.run();
      this.applying = true;
      result = await fn(this.tx);
      this.sql.release.run();
    } catch (error) {
      for (let i = undo.length - 1; i >= 0; i--) undo[i]!();
      this.rollbackSavepoint(group, error);
      throw error;
    } finally {
      this.applying = false;
    }
    const wrote = this.wrote;
    if (wrote) group.wrote = true;
    for (const callback of after) group.after.push(callback);
    for (const callback of applied) callback();
    return { result, wrote };
  }

  /** Undoes the failed savepoint; when SQLite already dropped the whole group (I/O, full disk), fails the group. */
  private rollbackSavepoint(group: Group, error: unknown): void {
    try {
      if (this.db.inTransaction) {
        this.sql.rollbackTo.run();
        this.sql.release.run();
        return;
      }
    } catch {
      // Falls through: the group cannot continue.
    }
    this.fail(group, error);
  }

  /** Writes the group's positions and runtime state and commits it; on failure, fails the group. */
  private commit(group: Group): void {
    let state: RuntimeState | undefined;
    try {
      this.savePositions();
      state = this.tracked?.read();
      if (state && !sameState(this.savedState, state)) this.writeState(state);
      else state = undefined;
      this.sql.commit.run();
    } catch (error) {
      this.fail(group, error);
      return;
    }
    this.group = null;
    if (state) this.savedState = state;
    void this.finish(group);
    this.wake();
  }

  private async finish(group: Group): Promise<void> {
    let failure: { error: unknown } | undefined;
    try {
      if (group.wrote && this.hooks.length > 0) await Promise.all(this.hooks.map((hook) => hook()));
    } catch (error) {
      failure = { error };
    }
    // The group is committed even when a hook failed, so its follow-up work still runs.
    this.units.exit(() => {
      for (const callback of group.after) {
        try {
          callback();
        } catch (error) {
          this.onError(error);
        }
      }
    });
    if (failure) group.reject(failure.error);
    else group.resolve();
  }

  /** Rolls a group back whole, forgets cached figures and the runtime state it moved, and rejects its waiters. */
  private fail(group: Group, error: unknown): void {
    if (this.group === group) this.group = null;
    try {
      if (this.db.inTransaction) this.sql.rollback.run();
    } catch {
      // The connection already dropped the transaction.
    }
    this.caches.clear();
    this.texts.clear();
    // An export taken while the group was open saw writes the rollback just undid.
    this.world = undefined;
    this.dirty.clear();
    if (this.tracked && this.savedState) this.tracked.reset(this.savedState);
    group.reject(error);
    this.wake();
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }

  private savePositions(): void {
    for (const name of this.dirty) {
      const next = this.caches.get(name)?.next;
      if (typeof next === 'number') this.sql.savePosition.run(name, next);
    }
    this.dirty.clear();
  }

  private writeState(state: RuntimeState): void {
    this.sql.setMeta.run(META.serviceDomain, state.service_domain);
    this.sql.setMeta.run(META.clockMs, String(state.clock_ms));
    this.sql.setMeta.run(META.random, state.random);
  }

  private readState(): RuntimeState | undefined {
    const meta = new Map(this.sql.meta.all() as Array<[string, string]>);
    const clock = meta.get(META.clockMs);
    const random = meta.get(META.random);
    const domain = meta.get(META.serviceDomain);
    if (clock === undefined || random === undefined || domain === undefined) return undefined;
    return { service_domain: domain, clock_ms: Number(clock), random };
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

  private lastPosition(collection: string): number {
    return (this.cache(collection).next ?? 1) - 1;
  }

  private get<T>(collection: string, id: string): T | undefined {
    const key = recordKey(collection, id);
    let text = this.texts.get(key);
    if (text === undefined) {
      text = this.sql.get.get(collection, id) as string | undefined;
      if (text === undefined) return undefined;
      this.remember(key, text);
    }
    return JSON.parse(text) as T;
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

  private page<T>(collection: string, query: PageQuery): PageResult<T> {
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

  private all<T>(collection: string): T[] {
    return (this.sql.all.all(collection) as string[]).map((text) => JSON.parse(text) as T);
  }

  private count(collection: string, partition?: string): number {
    const cache = this.cache(collection);
    if (partition === undefined) return (cache.total ??= this.sql.countAll.get(collection) as number);
    let count = cache.partitions.get(partition);
    if (count === undefined) cache.partitions.set(partition, (count = this.sql.countPartition.get(collection, partition) as number));
    return count;
  }

  /** Adds `delta` to the cached counts that are known (unknown ones are counted when first asked). */
  private adjust(cache: CollectionCache, partition: string, delta: number): void {
    if (cache.total !== undefined) cache.total += delta;
    const count = cache.partitions.get(partition);
    if (count !== undefined) cache.partitions.set(partition, count + delta);
  }

  private insert(undo: Undo[], collection: string, id: string, record: unknown, partition = ''): void {
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
    this.wrote = true;
    this.world = undefined;
    cache.next = position + 1;
    this.dirty.add(collection);
    this.adjust(cache, partition, 1);
    const key = recordKey(collection, id);
    this.touch(key);
    this.remember(key, text);
    undo.push(() => {
      cache.next = previous;
      this.adjust(cache, partition, -1);
      this.texts.delete(key);
    });
  }

  private update(undo: Undo[], collection: string, id: string, record: unknown): void {
    const text = JSON.stringify(record) ?? 'null';
    const changes = this.sql.update.run(text, collection, id).changes;
    if (changes === 0) throw new Error(`no record ${id} in ${collection}`);
    this.wrote = true;
    this.world = undefined;
    const key = recordKey(collection, id);
    this.touch(key);
    const previous = this.texts.get(key);
    this.remember(key, text);
    undo.push(() => this.recall(key, previous));
  }

  private remove(undo: Undo[], collection: string, id: string): boolean {
    const partition = this.sql.remove.get(collection, id) as string | undefined;
    if (partition === undefined) return false;
    this.wrote = true;
    this.world = undefined;
    const cache = this.cache(collection);
    this.adjust(cache, partition, -1);
    const key = recordKey(collection, id);
    this.touch(key);
    const previous = this.texts.get(key);
    this.texts.delete(key);
    undo.push(() => {
      this.adjust(cache, partition, 1);
      this.recall(key, previous);
    });
    return true;
  }
}
