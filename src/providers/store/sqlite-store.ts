import { AsyncLocalStorage } from 'node:async_hooks';
import type Database from 'better-sqlite3';
import type { RuntimeState, RuntimeStateHost, Store, StoreSnapshot, StoreTransaction, StoreView } from '../../core/ports/store.js';
import { runOutside } from './run-outside.js';
import { TransactionTurns, type Turn } from './transaction-turns.js';
import { UnitAdmission } from './unit-admission.js';
import { META } from './sqlite-schema.js';
import { openDatabase, type SqliteOpenOptions } from './sqlite-open.js';
import { CommitGroups, type Group, type Unit } from './sqlite-groups.js';
import { SqliteRecords, type Undo } from './sqlite-records.js';
import { SqliteTransfer } from './sqlite-transfer.js';

/** Options of {@link SqliteStore.open}. */
export interface SqliteStoreOptions extends SqliteOpenOptions {
  /** Receives errors thrown by after-commit callbacks (default: written to stderr). */
  onError?: (error: unknown) => void;
}

/** What a write answers: it was applied when called. */
const DONE: Promise<void> = Promise.resolve();

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
 *
 * Split by concern: group commit in {@link CommitGroups} (sqlite-groups.ts), record access and
 * its caches in {@link SqliteRecords} (sqlite-records.ts), import and export in
 * {@link SqliteTransfer} (sqlite-transfer.ts); this class holds transactions, units and the
 * runtime state, and ties them together. The store conformance suite runs over all of it.
 */
export class SqliteStore implements Store {
  private readonly db: Database.Database;
  private readonly units = new AsyncLocalStorage<Unit>();
  private readonly hooks: Array<() => void | Promise<void>> = [];
  private readonly onError: (error: unknown) => void;
  private readonly turns = new TransactionTurns();
  /** A transaction's savepoint is open: the group cannot COMMIT now. */
  private applying = false;
  private closed = false;
  private readonly admission = new UnitAdmission(this.units);
  private undo: Undo[] = [];
  private applied: Array<() => void> = [];
  private after: Array<() => void> = [];
  private wrote = false;
  private tracked: { read: () => RuntimeState; reset: (saved: RuntimeState) => void } | undefined;
  private savedState: RuntimeState | undefined;
  /** The state the open group's COMMIT writes (set just before it). */
  private committing: RuntimeState | undefined;
  private readonly sql;
  private readonly records: SqliteRecords;
  private readonly transfer: SqliteTransfer;
  private readonly groups: CommitGroups;

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
      meta: prepare('SELECT key, value FROM meta').raw(),
      setMeta: prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
    };
    this.records = new SqliteRecords(db, (key) => {
      this.wrote = true;
      this.transfer.written(key);
    });
    this.transfer = new SqliteTransfer(db, (state) => this.writeState(state));
    this.groups = new CommitGroups({
      sql: this.sql,
      db,
      units: this.units,
      hooks: this.hooks,
      onError: (error) => this.onError(error),
      applying: () => this.applying,
      beforeCommit: () => {
        this.records.savePositions();
        const state = this.tracked?.read();
        this.committing = state && !sameState(this.savedState, state) ? state : undefined;
        if (this.committing) this.writeState(this.committing);
      },
      committed: () => {
        if (this.committing) this.savedState = this.committing;
        this.committing = undefined;
      },
      rolledBack: () => {
        this.committing = undefined;
        this.records.forget();
        // An export taken while the group was open saw writes the rollback just undid.
        this.transfer.forgetWorld();
        if (this.tracked && this.savedState) this.tracked.reset(this.savedState);
      },
    });
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
    get: (collection, id) => this.turns.read(() => this.records.get(collection, id)),
    page: (collection, query) => this.turns.read(() => this.records.page(collection, query)),
    all: (collection) => this.turns.read(() => this.records.all(collection)),
    count: (collection, partition) => this.turns.read(() => this.records.count(collection, partition)),
    lastPosition: (collection) => this.turns.read(() => this.records.lastPosition(collection)),
  };

  /**
   * What every transaction handle shares: a handle is one object over this prototype holding its
   * turn (a kept handle is then known to be stale). Reads and writes run at once on the
   * connection, a failed write throws where it is called.
   */
  private readonly handle: StoreTransaction & { turn: Turn | null } = (() => {
    const store = this;
    const undoOf = (handle: { turn: Turn | null }): Undo[] => {
      if (handle.turn !== store.turns.current) throw new Error('store transaction handle used outside its transaction');
      return store.undo;
    };
    return {
      turn: null,
      get: (collection, id) => Promise.resolve(store.records.get(collection, id)),
      page: (collection, query) => Promise.resolve(store.records.page(collection, query)),
      all: (collection) => Promise.resolve(store.records.all(collection)),
      count: (collection, partition) => Promise.resolve(store.records.count(collection, partition)),
      lastPosition: (collection) => Promise.resolve(store.records.lastPosition(collection)),
      insert(collection, id, record, partition) {
        store.records.insert(undoOf(this), collection, id, record, partition);
        return DONE;
      },
      update(collection, id, record) {
        store.records.update(undoOf(this), collection, id, record);
        return DONE;
      },
      remove(collection, id) {
        return Promise.resolve(store.records.remove(undoOf(this), collection, id));
      },
      lock() {
        undoOf(this);
        return DONE;
      },
      afterCommit(callback) {
        undoOf(this);
        store.after.push(callback);
      },
      afterApply(callback) {
        undoOf(this);
        store.applied.push(callback);
      },
    };
  })();

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
        if (!unit.group) this.groups.join(unit, this.groups.current ?? this.groups.open());
        return Promise.resolve();
      }
      return (this.groups.current ?? this.groups.open()).done;
    },
  };

  async transaction<T>(fn: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    const unit = this.admission.current();
    for (;;) {
      // Work outside an open unit waits for an exclusive section (a unit's own work must finish first).
      const admitted = this.admission.admitTransaction();
      if (admitted) await admitted;
      // A sealed group takes no new transactions except those of its own open units, so a stream
      // of arrivals cannot keep it from committing.
      if (this.groups.sealed() && !(unit && unit.group === this.groups.current)) await this.groups.untilUnsealed();
      else break;
    }
    const { group, result, wrote } = await this.turns.run(async (turn) => {
      this.assertOpen();
      if (unit?.group && unit.group !== this.groups.current) throw new Error("the durable unit's commit failed; it takes no more transactions");
      const group = this.groups.current ?? this.groups.open();
      if (unit && !unit.group) this.groups.join(unit, group);
      return { group, ...(await this.apply(group, turn, fn)) };
    });
    // The group's COMMIT waits while a transaction runs; this one just ended.
    this.groups.maybeCommit(group);
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
        this.groups.maybeCommit(group);
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
      const group = this.groups.current;
      if (!group) return false;
      // No unit holds it: commit now rather than at the end of the turn; a failure rejects here.
      if (group.members.size === 0) this.groups.commit(group);
      await group.done;
      return true;
    });
  }

  onCommit(hook: () => void | Promise<void>): void {
    this.hooks.push(hook);
  }

  export(): Promise<StoreSnapshot> {
    return this.turns.read(() => {
      this.assertOpen();
      // Positions of the open group are written at its COMMIT; export reads the table.
      return this.transfer.export(() => {
        if (this.groups.current) this.records.savePositions();
      });
    });
  }

  async import(snapshot: StoreSnapshot): Promise<void> {
    this.assertOpen();
    if (this.turns.busy) throw new Error('cannot import while a transaction runs: import inside store.exclusive()');
    // Run through exclusive(): nothing may be pending, or the import would take a half-done
    // request's writes into (or out of) the restored world.
    if (this.groups.current || this.admission.busy) throw new Error('cannot import while writes are pending: import inside store.exclusive()');
    const state = this.tracked?.read();
    this.transfer.import(snapshot, state);
    this.records.forget();
    if (state) this.savedState = state;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    while (this.groups.current) await this.groups.current.done.catch(() => undefined);
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

  /** Applies `fn` as a savepoint of `group`, in the running turn. @throws what `fn` threw, after undoing its writes */
  private async apply<T>(group: Group, turn: Turn, fn: (tx: StoreTransaction) => Promise<T>): Promise<{ result: T; wrote: boolean }> {
    const undo: Undo[] = (this.undo = []);
    const applied: Array<() => void> = (this.applied = []);
    const after: Array<() => void> = (this.after = []);
    this.wrote = false;
    let result: T;
    try {
      this.sql.savepoint.run();
      this.applying = true;
      const tx = Object.create(this.handle) as StoreTransaction & { turn: Turn };
      tx.turn = turn;
      result = await fn(tx);
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
    this.groups.fail(group, error);
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
}
