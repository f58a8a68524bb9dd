import { setTimeout as delay } from 'node:timers/promises';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Sql } from 'postgres';
import { CLOCK_CHANGED, type SharedStore, type Store, type StoreSnapshot, type StoreTransaction, type StoreView } from '../../../core/ports/store.js';
import type { BlobStore } from '../../../core/ports/blob-store.js';
import { PostgresBlobStore } from '../../blobs/postgres-blob-store.js';
import { runOutside } from '../run-outside.js';
import { UnitAdmission } from '../unit-admission.js';
import { DbTransaction } from './db-transaction.js';
import { PostgresClaims } from './postgres-claims.js';
import { COMMON, openPools } from './pools.js';
import { ReadCache } from './read-cache.js';
import { RemoteCommits } from './remote-commits.js';
import { WriteConflict, isRetryable, isUnreachable, translate } from './postgres-errors.js';
import { PostgresRuntimeState } from './postgres-runtime-state.js';
import { migrate, SCHEMA_VERSION, schemaVersion, SchemaTooNewError } from './postgres-schema.js';
import { exportWorld, importWorld } from './postgres-snapshot.js';
import { Sequences } from './sequences.js';
import { settledPosition } from './settled-positions.js';

/** The channel commits are announced on. */
const CHANNEL = 'agent_services';
/** How often a unit runs again after a conflict before its failure is answered. */
const MAX_ATTEMPTS = 8;

/** Options of {@link PostgresStore.open}. */
export interface PostgresStoreOptions {
  /** Connections of the main pool (default 20). */
  maxConnections?: number;
  /** Create or upgrade the schema at open (default true); false only checks the version. */
  migrate?: boolean;
  /** Receives errors thrown by after-commit callbacks (default: written to stderr). */
  onError?: (error: unknown) => void;
  /** Receives the text of each statement the main pool sends (to count or trace them). */
  onStatement?: (text: string) => void;
}

/** A durable unit in progress: one PostgreSQL transaction, begun at its first store transaction. */
interface Unit {
  open: boolean;
  db: DbTransaction | null;
  /** The unit's transactions run one after another on its connection. */
  turn: Promise<unknown>;
  /** A conflict or a lost database met inside: the unit must run again (or fail) whatever `work` answered. */
  doomed: { error: unknown } | undefined;
  applied: Array<() => void>;
  after: Array<() => void>;
  /** Work to run as the unit's last transactions, just before its COMMIT. */
  beforeCommit: Array<(tx: StoreTransaction) => Promise<void>>;
  outside: Array<() => Promise<unknown>>;
  /** Records earlier runs of this unit lost a race on (see {@link DbTransaction.contend}). */
  contended: ReadonlyArray<{ collection: string; id: string }>;
  /** Records the unit read through the view from the process's cache: checked in its transaction. */
  cachedReads: Array<{ collection: string; id: string; version: number }>;
}

/**
 * The store for worlds that many processes serve at once: every record a row of PostgreSQL, every
 * durable unit one database transaction (each store transaction a savepoint in it), committed
 * before the answer. READ COMMITTED with explicit locks on money rows ({@link StoreTransaction.lock})
 * and a first-updater-wins check on every other update; a unit that loses a race runs again.
 * Commits are announced with NOTIFY as other processes follow them (jobs, events, the clock; see RemoteCommits).
 * Nothing is cached: a process's memory does not grow with the world.
 */
export class PostgresStore implements Store {
  private readonly units = new AsyncLocalStorage<Unit>();
  /** Set while a transaction function runs: a transaction started from inside it would wait for itself. */
  private readonly inTransaction = new AsyncLocalStorage<true>();
  private readonly admission = new UnitAdmission(this.units);
  private readonly hooks: Array<() => void | Promise<void>> = [];
  private readonly processId = randomUUID();
  private readonly sequences: Sequences;
  private readonly onError: (error: unknown) => void;
  private readonly claims: PostgresClaims;
  /** Counts and pages read before, answered again inside units with a check (see ReadCache). */
  private readonly cache = new ReadCache();
  /** Word of commits to and from other processes. */
  private readonly remote: RemoteCommits;
  private unlisten: (() => Promise<void>) | undefined;
  private closed = false;
  readonly runtimeState: PostgresRuntimeState;

  private constructor(
    private readonly sql: Sql,
    /** A small pool for sequences and the clock, so they never wait behind busy units. */
    private readonly control: Sql,
    options: PostgresStoreOptions & { url: string },
  ) {
    this.sequences = new Sequences(control);
    this.claims = new PostgresClaims(options.url, COMMON, () => this.assertOpen());
    this.onError = options.onError ?? ((error) => process.stderr.write(`store: after-commit callback failed: ${(error as Error)?.stack ?? String(error)}\n`));
    this.remote = new RemoteCommits(
      this.processId,
      (collections) => this.announce(collections),
      (callback) => this.guard(callback),
    );
    this.runtimeState = new PostgresRuntimeState(control, () => this.announce(new Set([CLOCK_CHANGED])));
  }

  /**
   * Connects, creates or upgrades the schema, and starts following other processes' commits.
   * @throws Error for a database that cannot be reached, SchemaTooNewError for a newer schema
   */
  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const { sql, control } = openPools(url, options);
    try {
      if (options.migrate === false) {
        const found = await schemaVersion(control);
        if (found > SCHEMA_VERSION) throw new SchemaTooNewError(found, SCHEMA_VERSION);
        if (found < SCHEMA_VERSION) throw new Error(`the database has schema version ${found}; run agent-services migrate first`);
      } else await migrate(control);
      const store = new PostgresStore(sql, control, { ...options, url });
      const listening = await control.listen(CHANNEL, (payload) => store.remote.received(payload));
      store.unlisten = () => listening.unlisten();
      return store;
    } catch (error) {
      await Promise.allSettled([sql.end({ timeout: 1 }), control.end({ timeout: 1 })]);
      throw error;
    }
  }

  readonly view: StoreView = {
    get: (collection, id) => this.viewGet(collection, id),
    page: (collection, query) => this.read((db) => db.page(collection, query)),
    all: (collection) => this.read((db) => db.all(collection)),
    count: (collection, partition) => this.read((db) => db.count(collection, partition)),
    lastPosition: (collection) => this.read((db) => db.lastPosition(collection)),
  };

  /** File bytes kept in this database (chunks of 1 MiB), for worlds without a shared blob directory. */
  blobStore(): BlobStore {
    return new PostgresBlobStore(this.sql);
  }

  readonly shared: SharedStore = {
    claim: (name) => this.claims.claim(name),
    awaitClaim: (name) => this.claims.awaitClaim(name),
    claimReading: (name, collection, id) => this.claims.claimReading(name, { collection, id }),
    onRemoteCommit: (listener, follow) => this.remote.follow(listener, follow),
    savedClock: () => this.runtimeState.savedClock(),
    settledPosition: (collection) => settledPosition(this.control, this.sequences, collection),
  };

  /**
   * A read: inside a unit that began its database transaction, on that transaction (it sees the
   * unit's own writes); elsewhere a statement of its own, which sees what is committed.
   */
  private async read<R>(work: (db: DbTransaction) => Promise<R>): Promise<R> {
    const unit = this.current();
    // From inside a running transaction (a service it calls reads the view) the read goes at
    // once: waiting for the unit's turn would wait for that transaction, which waits for it.
    if (unit?.db) return this.inTransaction.getStore() ? work(unit.db) : this.inTurn(unit, () => work(unit.db!));
    try {
      return await work(DbTransaction.reader(this.sql, this.sequences));
    } catch (error) {
      throw translate(error);
    }
  }

  /**
   * A read through the view inside a unit whose transaction has not begun: answered from the
   * process's cache when it holds the record, checked in the unit's transaction (begun for it if
   * need be), so the unit commits only if the record is still as read; else read from the pool
   * and kept. Elsewhere as {@link read}.
   */
  private async viewGet<T>(collection: string, id: string): Promise<T | undefined> {
    const unit = this.current();
    if (unit?.db) return this.read((db) => db.get<T>(collection, id));
    if (!unit || unit.doomed || this.inTransaction.getStore()) return this.claims.read(collection, id).then((row) => (row ? (JSON.parse(row.text) as T) : undefined));
    const cached = this.cache.record(collection, id);
    if (cached) {
      unit.cachedReads.push({ collection, id, version: cached.version });
      return JSON.parse(cached.text) as T;
    }
    const generation = this.cache.generation(collection);
    const row = await this.claims.read(collection, id);
    if (!row) return undefined;
    this.cache.keepRecord(collection, id, row.text, row.version, generation);
    return JSON.parse(row.text) as T;
  }

  private current(): Unit | undefined {
    const unit = this.units.getStore();
    return unit?.open ? unit : undefined;
  }

  /** Runs `work` after the unit's earlier transactions (one connection runs one thing at a time). */
  private inTurn<R>(unit: Unit, work: () => Promise<R>): Promise<R> {
    const run = unit.turn.then(work, work);
    unit.turn = run.catch(() => undefined);
    return run;
  }

  async transaction<T>(fn: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    if (this.inTransaction.getStore()) throw new Error('store transactions do not nest');
    const unit = this.current();
    // Outside a unit a transaction is a unit of its own (and runs again after a conflict).
    if (!unit) return this.unit(() => this.transaction(fn));
    return this.inTurn(unit, () => this.apply(unit, fn));
  }

  /** Begins the unit's database transaction, first taking the turn on each record an earlier run lost a race on. */
  private async begin(unit: Unit): Promise<DbTransaction> {
    const db = await DbTransaction.begin(this.sql, this.sequences, this.cache);
    for (const { collection, id } of unit.contended) db.contend(collection, id);
    // Checked in every database transaction the unit begins: one rolled back whole takes its checks with it.
    for (const { collection, id, version } of unit.cachedReads) db.expectRecord(collection, id, version);
    // Now, not when the caller resumes: a read through the view meanwhile would take the cache and
    // push a check this transaction never makes.
    unit.db = db;
    return db;
  }

  /**
   * Runs `fn` in the unit's database transaction. A savepoint is opened only where a failure of
   * `fn` must be undone alone: not for the unit's first transaction (its failure rolls the
   * database transaction back whole and the next one begins afresh), nor for the steps run just
   * before the COMMIT (`final`: their failure fails the unit). Each savepoint is a subtransaction
   * the server pays for.
   */
  private async apply<T>(unit: Unit, fn: (tx: StoreTransaction) => Promise<T>, final = false): Promise<T> {
    if (unit.doomed) throw unit.doomed.error;
    this.assertOpen();
    try {
      unit.db ??= await this.begin(unit);
    } catch (error) {
      unit.doomed = { error };
      throw translate(error);
    }
    const db = unit.db;
    const savepoint = final || !db.kept ? undefined : db.savepoint();
    const applied: Array<() => void> = [];
    const after: Array<() => void> = [];
    const beforeCommit: Array<(tx: StoreTransaction) => Promise<void>> = [];
    let live = true;
    const usable = () => {
      if (!live) throw new Error('store transaction handle used outside its transaction');
    };
    const tx: StoreTransaction = {
      get: (collection, id) => (usable(), db.get(collection, id)),
      page: (collection, query) => (usable(), db.page(collection, query)),
      all: (collection) => (usable(), db.all(collection)),
      count: (collection, partition) => (usable(), db.count(collection, partition)),
      lastPosition: (collection) => (usable(), db.lastPosition(collection)),
      insert: (collection, id, record, partition) => (usable(), db.insert(collection, id, record, partition)),
      update: (collection, id, record) => (usable(), db.update(collection, id, record)),
      remove: (collection, id) => (usable(), db.remove(collection, id)),
      lock: (collection, ids) => (usable(), db.lock(collection, ids)),
      prefetch: (collection, ids) => (usable(), db.prefetch(collection, ids)),
      afterCommit: (callback) => void (usable(), after.push(callback)),
      afterApply: (callback) => void (usable(), applied.push(callback)),
      beforeCommit: (work) => void (usable(), beforeCommit.push(work)),
      // Only in the steps run just before the COMMIT, whose failure fails the unit: nothing rolls
      // back to a savepoint behind a numbered insert, which is queued for the COMMIT's batch.
      ...(final ? { insertNumbered: (collection: string, field: string, record: object, partition?: string) => (usable(), db.insertNumbered(collection, field, record as Record<string, unknown>, partition)) } : {}),
    };
    try {
      const result = await this.inTransaction.run(true, fn, tx);
      if (savepoint) db.release(savepoint);
      db.kept = true;
      unit.applied.push(...applied);
      unit.after.push(...after);
      unit.beforeCommit.push(...beforeCommit);
      return result;
    } catch (error) {
      if (isRetryable(error) || isUnreachable(error)) {
        unit.doomed = { error };
        throw translate(error);
      }
      if (final) {
        unit.doomed = { error };
        throw error;
      }
      try {
        if (savepoint) await db.rollbackTo(savepoint);
        else {
          // Nothing before this transaction to keep: the database transaction goes whole.
          unit.db = null;
          await db.rollback();
        }
      } catch (rollbackError) {
        unit.doomed = { error: rollbackError };
        throw translate(rollbackError);
      }
      throw error;
    } finally {
      live = false;
    }
  }

  async unit<T>(work: () => Promise<T>, last?: (tx: StoreTransaction, result: T) => Promise<void>): Promise<T> {
    if (this.current()) {
      const result = await work();
      if (last) await this.transaction((tx) => last(tx, result));
      return result;
    }
    const entered = this.admission.enterUnit();
    if (entered) await entered;
    try {
      // Records a run of this unit lost a race on: the next runs take their turn on them first.
      const contended: Array<{ collection: string; id: string }> = [];
      for (let attempt = 1; ; attempt++) {
        const unit: Unit = { open: true, db: null, turn: Promise.resolve(), doomed: undefined, applied: [], after: [], beforeCommit: [], outside: [], contended, cachedReads: [] };
        let outcome: { ok: true; value: T } | { ok: false; error: unknown };
        try {
          const value = await this.units.run(unit, async () => {
            const result = await work();
            // The last step (an Idempotency-Key's record) without a savepoint of its own: should
            // it fail, the unit fails whole, so the effect never commits without its record.
            if (last && !unit.doomed) await this.inTurn(unit, () => this.apply(unit, (tx) => last(tx, result), true));
            return result;
          });
          outcome = { ok: true, value };
        } catch (error) {
          outcome = { ok: false, error };
        }
        // The work kept for the end (numbering events), whatever `work` answered: what it applied
        // commits, and its events with it. A step that fails fails the whole unit.
        try {
          await this.units.run(unit, async () => {
            while (unit.beforeCommit.length > 0 && !unit.doomed) {
              const steps = unit.beforeCommit.splice(0);
              await this.inTurn(unit, () =>
                this.apply(
                  unit,
                  async (tx) => {
                    for (const step of steps) await step(tx);
                  },
                  true,
                ),
              );
            }
          });
        } catch (error) {
          unit.doomed ??= { error };
        }
        await unit.turn;
        // Reads answered from the cache are checked even by a unit that began no transaction.
        if (unit.cachedReads.length > 0 && !unit.db && !unit.doomed) {
          try {
            unit.db = await this.begin(unit);
          } catch (error) {
            unit.doomed = { error };
          }
        }
        unit.open = false;
        const failure = unit.doomed ?? (!outcome.ok && (isRetryable(outcome.error) || isUnreachable(outcome.error)) ? { error: outcome.error } : undefined);
        try {
          if (failure) throw failure.error;
          // What the unit applied commits even when `work` threw (as every store does), then the throw goes on.
          if (unit.db) {
            const notice = unit.db.wrote ? this.remote.withCommit(unit.db.changed) : undefined;
            await unit.db.commit(this.commitStatements(unit.db, notice));
            this.cache.committed(unit.db.inserted, unit.db.rewritten);
            if (unit.db.wrote && notice === undefined) this.remote.committed(unit.db.changed);
          }
        } catch (error) {
          if (!failure) unit.db = null; // commit() gave the connection back
          await unit.db?.rollback();
          if (isRetryable(error) && attempt < MAX_ATTEMPTS) {
            if (error instanceof WriteConflict && !contended.some((record) => record.collection === error.collection && record.id === error.id)) {
              contended.push({ collection: error.collection, id: error.id });
            }
            await delay(Math.random() * 5 * attempt);
            continue;
          }
          throw translate(error);
        }
        await this.committed(unit);
        if (unit.outside.length > 0) await this.units.exit(() => runOutside(unit.outside));
        if (!outcome.ok) throw outcome.error;
        return outcome.value;
      }
    } finally {
      this.admission.leaveUnit();
    }
  }

  /** The NOTIFY of what a commit changed (`notice`, when it is sent with the commit), and the world's creation with its first commit. */
  private commitStatements(db: DbTransaction, notice: string | undefined): { statements?: Array<{ text: string; params: unknown[] }>; ops?: unknown[][] } {
    if (!db.wrote) return {};
    return { statements: this.runtimeState.creationStatements(), ops: notice === undefined ? [] : [['x', CHANNEL, notice]] };
  }

  /** After a durable commit: after-apply callbacks, commit hooks, after-commit callbacks, outside any unit. */
  private async committed(unit: Unit): Promise<void> {
    await this.units.exit(async () => {
      for (const callback of unit.applied) this.guard(callback);
      try {
        if (unit.db?.wrote && this.hooks.length > 0) await Promise.all(this.hooks.map((hook) => hook()));
      } finally {
        // The writes are committed even when a hook failed, so their follow-up work still runs.
        for (const callback of unit.after) this.guard(callback);
      }
    });
  }

  private guard(callback: () => void): void {
    try {
      callback();
    } catch (error) {
      this.onError(error);
    }
  }

  outside<T>(work: () => Promise<T>): Promise<T> | undefined {
    return this.admission.outside(work);
  }

  exclusive<T>(work: () => T | Promise<T>): Promise<T> {
    return this.admission.exclusive(work);
  }

  onCommit(hook: () => void | Promise<void>): void {
    this.hooks.push(hook);
  }

  async export(): Promise<StoreSnapshot> {
    try {
      return await exportWorld(this.sql, this.sequences);
    } catch (error) {
      throw translate(error);
    }
  }

  async import(snapshot: StoreSnapshot): Promise<void> {
    if (this.admission.busy) throw new Error('cannot import while a durable unit is open: import inside store.exclusive()');
    await importWorld(this.sql, this.sequences, snapshot);
    // Everything: the collections the snapshot lacks were emptied too.
    await this.announce(new Set(['*']));
  }

  /** Announces a change made outside a unit (the clock, an import). */
  private async announce(collections: ReadonlySet<string>): Promise<void> {
    await this.control`SELECT pg_notify(${CHANNEL}, ${this.remote.payloadOf(collections)})`;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the PostgreSQL store is closed');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.remote.close();
    await this.unlisten?.().catch(() => undefined);
    await Promise.allSettled([this.claims.close(), this.sql.end({ timeout: 5 }), this.control.end({ timeout: 5 })]);
  }
}
