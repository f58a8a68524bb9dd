import type { ReservedSql, Sql } from 'postgres';
import type { PageQuery, PageResult, Positioned } from '../../../core/ports/store.js';
import type { Row } from './batch-sender.js';
import { ABSENT, type KnownRow, knownRows } from './known-rows.js';
import { isCheckFailure, WriteConflict } from './postgres-errors.js';
import { countKey, type ReadCache, recordKey } from './read-cache.js';
import { keyOf, lockKey } from './record-keys.js';
import { numberSpace, ORDER } from './settled-positions.js';
import type { Sequences } from './sequences.js';
import { StatementQueue } from './statement-queue.js';

/** Rows a page asks for at most when its limit means "all". */
const NO_LIMIT = 2 ** 31 - 2;

const BEGIN = 'BEGIN ISOLATION LEVEL READ COMMITTED';

/**
 * One PostgreSQL transaction on a connection of its own, at READ COMMITTED: the database side of
 * a durable unit. Writes, locks and checks are queued and sent together with the next read that
 * must be answered, or the COMMIT: one round trip, and one statement (agent_services_batch) for
 * each run of them. Reads remember the version of each record they saw, and an update or removal
 * of a record whose version moved since is a {@link WriteConflict} (first updater wins, checked
 * in the database), so no update is ever lost although rows are not locked until written. Money
 * rows are locked explicitly ({@link lock}) before they are read, so they never conflict; their
 * rows are read with the lock, and a record the transaction locked or wrote is read again from
 * what it knows, without a round trip.
 */
export class DbTransaction {
  private readonly queue: StatementQueue;
  private readonly versions = new Map<string, number>();
  /** Records locked ({@link lock}) by this transaction, and those of them read only after their lock. */
  private readonly locked = new Set<string>();
  private readonly guarded = new Set<string>();
  /**
   * Records whose text this transaction knows and that nobody else can change before it ends: read
   * after their lock (or prefetched with it), or written by it. A read of one needs no round trip.
   */
  private readonly rows = new Map<string, KnownRow>();
  /** Locked records whose rows are queued to be read right behind the lock. */
  private readonly prefetching = new Set<string>();
  /**
   * Records read ahead ({@link prefetch}) without a lock: their first read answers from here, as a
   * read made when the batch ran (its version is checked by a later write, as any read's).
   */
  private readonly ahead = new Map<string, KnownRow | undefined>();
  /** Advisory lock keys this transaction holds (asked for, queued or sent). */
  private readonly held = new Set<bigint>();
  /** Inserts numbered at the COMMIT ({@link insertNumbered}), with the records to write their numbers into. */
  private readonly numbered: Array<{ op: unknown[]; record: Record<string, unknown>; field: string }> = [];
  /** Whether a store transaction's work was kept in this one (a later failure must then roll back to a savepoint). */
  kept = false;
  /** Collections written by this transaction (announced to other processes at commit). */
  readonly changed = new Set<string>();
  /** Partitions inserted into (`collection\u001fpartition`), and collections updated or removed from: for the read cache. */
  readonly inserted = new Set<string>();
  readonly rewritten = new Set<string>();
  /** Records this transaction inserted. */
  private readonly own = new Set<string>();

  private constructor(
    private readonly conn: ReservedSql | Sql,
    private readonly sequences: Sequences,
    /** False for reads outside any unit: each statement on its own, no connection held. */
    private readonly reserved: boolean,
    /** The process's cache of counts and pages (used inside units only, where a check can fail the unit). */
    private readonly cache: ReadCache | undefined,
  ) {
    this.queue = new StatementQueue(conn, () => {
      this.prefetching.clear();
      this.ahead.clear();
    });
  }

  /** Reserves a connection and queues BEGIN (sent with the first batch). */
  static async begin(sql: Sql, sequences: Sequences, cache?: ReadCache): Promise<DbTransaction> {
    const conn = await sql.reserve();
    const tx = new DbTransaction(conn, sequences, true, cache);
    tx.queue.pending.push({ text: BEGIN });
    return tx;
  }

  /** Reads outside any unit: every statement from the pool, seeing what is committed (never from the cache, whose answers only a unit's transaction can check). */
  static reader(sql: Sql, sequences: Sequences): DbTransaction {
    return new DbTransaction(sql, sequences, false, undefined);
  }

  /** Whether this transaction wrote anything. */
  get wrote(): boolean {
    return this.changed.size > 0 || this.numbered.length > 0;
  }

  /** Sends whatever is queued. */
  flush(): Promise<unknown> {
    return this.queue.send();
  }

  async get<T>(collection: string, id: string): Promise<T | undefined> {
    const key = keyOf(collection, id);
    if (this.prefetching.has(key) || (this.ahead.has(key) && this.ahead.get(key) === undefined)) await this.queue.send();
    const early = this.ahead.get(key);
    this.ahead.delete(key);
    // A read ahead answers only a first read: a record read or locked since is known better.
    if (early && !this.versions.has(key) && !this.rows.has(key)) {
      this.remember(collection, id, early.version);
      return early.text === undefined ? undefined : (JSON.parse(early.text) as T);
    }
    const known = this.rows.get(key);
    if (known) {
      this.remember(collection, id, known.version);
      return known.text === undefined ? undefined : (JSON.parse(known.text) as T);
    }
    const [row] = await this.queue.read(['g', collection, id]);
    const version = row ? row.version! : ABSENT;
    this.remember(collection, id, version);
    if (!row) return undefined;
    if (this.guarded.has(key) && this.versions.get(key) === version) this.rows.set(key, { text: row.record!, version });
    return JSON.parse(row.record!) as T;
  }

  /** Queues the check of a record read from the process's cache (see ReadCache): it fails the transaction if the record moved. */
  expectRecord(collection: string, id: string, version: number): void {
    this.queue.pending.push({ op: ['eg', collection, id, version], failure: this.staleRead(recordKey(collection, id)) });
  }

  async page<T>(collection: string, query: PageQuery): Promise<PageResult<T>> {
    const limit = Math.min(query.limit, NO_LIMIT) + 1;
    const oldest = query.order === 'oldest';
    const bound = oldest ? (query.after ?? 0) : (query.before ?? Number.MAX_SAFE_INTEGER);
    // Inside a unit, a page read before may answer, checked in the unit's next batch (see
    // ReadCache): unless the unit changed the collection, or inserted into the partition, which
    // only an oldest-first page that was full cannot see (inserts take the newest positions).
    const partitionKey = countKey(collection, query.partition);
    const usable = this.cache !== undefined && !this.rewritten.has(collection);
    const key = usable ? `page\u001f${partitionKey}\u001f${oldest ? 'o' : 'n'}\u001f${bound}\u001f${limit}` : '';
    const cached = usable ? this.cache!.page(key) : undefined;
    if (cached && (!this.inserted.has(partitionKey) || (oldest && cached.hasMore))) {
      const seen = cached.rows.map((row) => `${row.id}:${row.version}`).join(',');
      this.queue.pending.push({ op: ['ep', collection, query.partition, oldest ? 'o' : 'n', bound, limit, seen], failure: this.staleRead(key) });
      return this.positioned<T>(collection, cached.rows, query.limit);
    }
    const generation = this.cache?.generation(collection) ?? 0;
    const found = await this.queue.send({ op: [oldest ? 'po' : 'pn', collection, query.partition, bound, limit] });
    const rows = found.map((row) => ({ id: row.id!, record: row.record!, position: Number(row.n), version: row.version! }));
    const hasMore = rows.length > query.limit;
    // Kept only as committed state: none of its rows written by this unit.
    if (usable && (!this.inserted.has(partitionKey) || (oldest && hasMore && rows.every((row) => !this.own.has(keyOf(collection, row.id)))))) {
      this.cache!.keepPage(key, { collection, partition: query.partition, order: oldest ? 'oldest' : 'newest', rows, hasMore }, generation);
    }
    return this.positioned<T>(collection, rows, query.limit);
  }

  /** Turns page rows into positioned records, remembering their versions. */
  private positioned<T>(collection: string, rows: ReadonlyArray<{ id: string; record: string; position: number; version: number }>, limit: number): PageResult<T> {
    const hasMore = rows.length > limit;
    const count = hasMore ? limit : rows.length;
    const items: Positioned<T>[] = new Array(count);
    for (let i = 0; i < count; i++) {
      const row = rows[i]!;
      this.remember(collection, row.id, row.version);
      items[i] = { record: JSON.parse(row.record) as T, position: row.position };
    }
    return { items, hasMore };
  }

  async all<T>(collection: string): Promise<T[]> {
    const rows = await this.queue.send({ op: ['a', collection] });
    return rows.map((row) => {
      this.remember(collection, row.id!, row.version!);
      return JSON.parse(row.record!) as T;
    });
  }

  async count(collection: string, partition?: string): Promise<number> {
    if (partition === undefined) return Number((await this.queue.send({ op: ['c', collection, null] }))[0]!.n);
    // As a page (above): inside a unit that has not inserted into the partition nor removed from
    // the collection, a count read before answers, checked in the unit's next batch.
    const cacheable = this.cache !== undefined && !this.inserted.has(countKey(collection, partition)) && !this.rewritten.has(collection);
    const cached = cacheable ? this.cache!.count(collection, partition) : undefined;
    if (cached !== undefined) {
      this.queue.pending.push({ op: ['ec', collection, partition, cached], failure: this.staleRead(countKey(collection, partition)) });
      return cached;
    }
    const generation = this.cache?.generation(collection) ?? 0;
    const n = Number((await this.queue.send({ op: ['c', collection, partition] }))[0]!.n);
    if (cacheable) this.cache!.keepCount(collection, partition, n, generation);
    return n;
  }

  /** What the failed check of a cached read means: forget it, and run the unit again (a lost race). */
  private staleRead(key: string): (error: unknown) => unknown {
    return (error) => {
      if (isCheckFailure(error)) this.cache!.stale(key);
      return error;
    };
  }

  async lastPosition(collection: string): Promise<number> {
    const sequence = await this.sequences.known(collection);
    if (!sequence) return 0;
    // The name is one Sequences made (letters, digits, underscores): safe as an identifier.
    const [row] = (await this.queue.send({ text: `SELECT last_value, is_called FROM ${sequence}` })) as unknown as Array<{ last_value: string; is_called: boolean }>;
    return row!.is_called ? Number(row!.last_value) : Number(row!.last_value) - 1;
  }

  /**
   * Notes the version a read saw. The first read of a record counts: at READ COMMITTED a later
   * read may see another transaction's newer commit, and checking a write against that one would
   * let a decision made on the first read (a quota check) stand on a value that is gone. A read
   * that found no record counts too: the record created meanwhile by another transaction is then
   * a conflict.
   */
  private remember(collection: string, id: string, version: number): void {
    const key = keyOf(collection, id);
    if (this.versions.has(key)) return;
    this.versions.set(key, version);
    if (this.locked.has(key)) this.guarded.add(key);
  }

  async insert(collection: string, id: string, record: unknown, partition = ''): Promise<void> {
    const sequence = this.sequences.made(collection) ?? (await this.sequences.ensure(collection));
    this.changed.add(collection);
    this.inserted.add(countKey(collection, partition));
    const text = JSON.stringify(record) ?? 'null';
    this.queue.pending.push({ op: ['i', collection, id, partition, sequence, text] });
    const key = keyOf(collection, id);
    this.ahead.delete(key);
    this.versions.set(key, 0);
    this.own.add(key);
    // Nobody else sees a row this transaction inserted until it commits.
    this.guarded.add(key);
    this.rows.set(key, { text, version: 0 });
  }

  /**
   * Queues an update. One of a record read is checked against the version read, in the database:
   * a record that moved since fails the batch, and with it the transaction, so the update may
   * travel in the same round trip as the COMMIT. One of a record never read must find it.
   */
  async update(collection: string, id: string, record: unknown): Promise<void> {
    const key = keyOf(collection, id);
    this.ahead.delete(key);
    const seen = this.versions.get(key);
    const text = JSON.stringify(record) ?? 'null';
    this.changed.add(collection);
    this.rewritten.add(collection);
    if (seen === undefined) {
      this.queue.pending.push({ op: ['w', collection, id, text] });
      this.rows.delete(key);
      return;
    }
    this.queue.pending.push({ op: ['u', collection, id, text, seen], failure: (error) => (isCheckFailure(error) ? new WriteConflict(collection, id) : error) });
    this.versions.set(key, seen + 1);
    this.rows.set(key, { text, version: seen + 1 });
  }

  async remove(collection: string, id: string): Promise<boolean> {
    const key = keyOf(collection, id);
    this.ahead.delete(key);
    const seen = this.versions.get(key);
    const [row] = await this.queue.send({ op: ['d', collection, id, seen === ABSENT ? null : (seen ?? null)] });
    const removed = Number(row?.n ?? 0) > 0;
    this.versions.delete(key);
    this.rows.delete(key);
    // Read as absent, found now: another transaction created it since (this one is undone and runs again).
    if (seen === ABSENT && removed) throw new WriteConflict(collection, id);
    if (!removed) {
      if (seen === ABSENT) return false;
      if (seen !== undefined) throw new WriteConflict(collection, id);
      return false;
    }
    this.changed.add(collection);
    this.rewritten.add(collection);
    return true;
  }

  /**
   * Takes transaction-scoped advisory locks on the records, in key order (no deadlock between two
   * lockers). The op is queued, not sent: it goes in the same batch as the next read (or the
   * COMMIT), and the server runs a batch in order, so that read still waits for the lock. A lock
   * this transaction already holds is not asked for again. The rows of the records are read right
   * behind the lock, in the same batch (a caller locks what it is about to read): their reads then
   * need no round trip of their own.
   */
  async lock(collection: string, ids: readonly string[]): Promise<void> {
    const wanted: bigint[] = [];
    const fetch: string[] = [];
    for (const id of ids) {
      const key = keyOf(collection, id);
      this.locked.add(key);
      const lock = lockKey(collection, id);
      if (!this.held.has(lock)) {
        this.held.add(lock);
        wanted.push(lock);
      }
      if (this.reserved && !this.versions.has(key) && !this.prefetching.has(key)) fetch.push(id);
    }
    if (wanted.length > 0) this.queueLocks(wanted.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map(String));
    if (fetch.length === 0) return;
    for (const id of fetch) this.prefetching.add(keyOf(collection, id));
    this.queue.pending.push({ op: ['f', collection, fetch], take: (rows) => this.prefetched(collection, fetch, rows) });
  }

  /**
   * Queues the read of records this transaction is about to read (see StoreTransaction.prefetch):
   * it goes with the next batch, and their first reads answer from it.
   */
  prefetch(collection: string, ids: readonly string[]): void {
    if (!this.reserved) return;
    const fetch = ids.filter((id) => {
      const key = keyOf(collection, id);
      return !this.versions.has(key) && !this.rows.has(key) && !this.prefetching.has(key) && !this.ahead.has(key);
    });
    if (fetch.length === 0) return;
    for (const id of fetch) this.ahead.set(keyOf(collection, id), undefined);
    this.queue.pending.push({
      op: ['f', collection, fetch],
      take: (rows) => {
        for (const [id, row] of knownRows(fetch, rows)) {
          const key = keyOf(collection, id);
          if (!this.ahead.has(key)) continue;
          // Written or read meanwhile: the read ahead is of no use.
          if (this.versions.has(key) || this.rows.has(key)) this.ahead.delete(key);
          else this.ahead.set(key, row);
        }
      },
    });
  }

  /** Queues advisory locks; right behind another lock op still queued, one op takes both, in the same order. */
  private queueLocks(keys: string[]): void {
    const previous = this.queue.pending.at(-1)?.op;
    if (previous?.[0] === 'l') (previous[1] as string[]).push(...keys);
    else this.queue.pending.push({ op: ['l', keys] });
  }

  /** Keeps the prefetched rows of locked records (absent ones as absent), unless read meanwhile. */
  private prefetched(collection: string, ids: readonly string[], rows: Row[]): void {
    for (const [id, row] of knownRows(ids, rows)) {
      const key = keyOf(collection, id);
      if (this.prefetching.delete(key) && !this.versions.has(key) && !this.rows.has(key)) this.rows.set(key, row);
    }
  }

  /**
   * Takes the advisory lock of a record a previous run of this unit lost a race on (queued, as
   * {@link lock}), so that the units that lost on it take turns instead of racing again. Unlike
   * {@link lock} it leaves the record's writes under the version check: other writers of it need
   * not take the lock.
   */
  contend(collection: string, id: string): void {
    const key = lockKey(collection, id);
    if (this.held.has(key)) return;
    this.held.add(key);
    this.queueLocks([String(key)]);
  }

  /**
   * Queues an insert numbered by the database in the COMMIT's batch (see
   * {@link StoreTransaction.insertNumbered}): the collection's order lock taken shared, then the
   * insert. Writers never wait for each other; readers read up to the settled position
   * (settled-positions.ts).
   */
  async insertNumbered(collection: string, field: string, record: Record<string, unknown>, partition = ''): Promise<void> {
    const sequence = this.sequences.made(collection) ?? (await this.sequences.ensure(collection));
    const { [field]: _number, ...rest } = record;
    const restText = JSON.stringify(rest);
    const before = `{${JSON.stringify(field)}:`;
    const after = restText === '{}' ? '}' : `,${restText.slice(1)}`;
    this.changed.add(collection);
    this.inserted.add(countKey(collection, partition));
    this.numbered.push({ op: ['nb', collection, partition, before, after, sequence, numberSpace(collection)], record, field });
  }

  /** Opens a savepoint (queued); answers its name for {@link release} or {@link rollbackTo}. */
  savepoint(): string {
    return this.queue.savepoint();
  }

  /** Ends a savepoint whose work stays (queued). */
  release(name: string): void {
    this.queue.release(name);
  }

  /** Undoes the work since the savepoint: statements not yet sent are dropped, the rest rolled back. */
  async rollbackTo(name: string): Promise<void> {
    // Locks asked for inside the savepoint are dropped or released with it; asking again for one
    // still held is harmless.
    this.held.clear();
    // Rows read or written inside the savepoint may be undone: read them again.
    this.rows.clear();
    this.prefetching.clear();
    this.ahead.clear();
    if (!(await this.queue.rollbackTo(name))) return;
    // Versions read inside the savepoint may be of rows it wrote; forgetting them only skips checks.
    this.versions.clear();
    this.guarded.clear();
  }

  /**
   * Sends what is queued, the numbered inserts behind their shared order lock, `extra` (statements of
   * their own, then ops: a NOTIFY) and COMMIT, in one round trip: every check is made in the
   * database, where a failed one fails the transaction, so the COMMIT behind it rolls back. Gives
   * the connection back; writes the numbers into their records.
   */
  async commit(extra: { statements?: Array<{ text: string; params: unknown[] }>; ops?: unknown[][] } = {}): Promise<void> {
    try {
      if (this.numbered.length > 0) {
        const orders = [...new Set(this.numbered.map(({ op }) => String(lockKey(op[1] as string, ORDER))))];
        this.queue.pending.push({ op: ['ls', orders.sort()] });
        for (const { op, record, field } of this.numbered) this.queue.pending.push({ op, take: (rows) => void (record[field] = Number(rows[0]!.n)) });
      }
      for (const statement of extra.statements ?? []) this.queue.pending.push(statement);
      for (const op of extra.ops ?? []) this.queue.pending.push({ op });
      await this.queue.send({ text: 'COMMIT' });
    } catch (error) {
      // A statement of the batch failed, and PostgreSQL skips what follows it, COMMIT included:
      // end the transaction here, or the connection goes back to the pool inside it.
      await this.conn.unsafe('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      (this.conn as ReservedSql).release();
    }
  }

  /** Rolls back (nothing of it stays) and gives the connection back; never throws. */
  async rollback(): Promise<void> {
    if (!this.reserved) return;
    const began = this.queue.pending[0]?.text !== BEGIN;
    this.queue.drop(0);
    try {
      // BEGIN still queued means nothing was ever sent.
      if (began) await this.conn.unsafe('ROLLBACK');
    } catch {
      // The connection is gone: nothing to undo.
    } finally {
      (this.conn as ReservedSql).release();
    }
  }
}
