import { createHash } from 'node:crypto';
import type { ReservedSql, Sql } from 'postgres';
import type { PageQuery, PageResult, Positioned } from '../../../core/ports/store.js';
import { WriteConflict } from './postgres-errors.js';
import type { Sequences } from './sequences.js';

/** A statement waiting to be sent with the next batch, and what to check of its answer. */
interface Statement {
  text: string;
  params: unknown[];
  check?: (rows: ReadonlyArray<Record<string, unknown>> & { count: number }) => void;
  /** An update of a record this transaction locked before reading it: its version cannot have moved. */
  guarded?: boolean;
}

/** Rows a page asks for at most when its limit means "all". */
const NO_LIMIT = 2 ** 31 - 2;

const RECORDS = 'agent_services_records';

/** Rows one INSERT statement takes at most (each count is a prepared statement of its own). */
const MAX_INSERT_ROWS = 8;

/** The INSERT of `rows` records, five parameters each: collection, id, part, sequence, record. */
function insertText(rows: number): string {
  const values: string[] = [];
  for (let at = 0; at < rows * 5; at += 5) values.push(`($${at + 1}, $${at + 2}, $${at + 3}, nextval($${at + 4}::text::regclass), $${at + 5})`);
  return `INSERT INTO ${RECORDS} (collection, id, part, position, record) VALUES ${values.join(', ')}`;
}

/** The INSERT texts by their number of rows, and the number of rows of each text. */
const INSERT_TEXTS = Array.from({ length: MAX_INSERT_ROWS }, (_, index) => insertText(index + 1));
const INSERT_ROWS = new Map(INSERT_TEXTS.map((text, index) => [text, index + 1]));

/** Takes transaction-level advisory locks in the order of the array (ORDINALITY keeps it). */
const LOCK = 'SELECT pg_advisory_xact_lock(k) FROM unnest($1::bigint[]) WITH ORDINALITY AS t(k, n) ORDER BY n';

/**
 * The version remembered for a record a read found absent: an update checked against it never
 * matches, so a record created by another transaction after this one saw none is a conflict.
 */
const ABSENT = -1;

/** The key of a record in the versions map. */
function keyOf(collection: string, id: string): string {
  return `${collection}\u001f${id}`;
}

/** A stable 64-bit advisory-lock key of a record (signed, as PostgreSQL's bigint), as text. */
export function lockKey(collection: string, id: string): bigint {
  return createHash('sha256').update(keyOf(collection, id)).digest().readBigInt64BE(0);
}

/**
 * One PostgreSQL transaction on a connection of its own, at READ COMMITTED: the database side of
 * a durable unit. Writes are queued and sent together (pipelined, one round trip) before the next
 * read, lock or the COMMIT; reads remember the version of each record they saw, and an update or
 * removal of a record whose version moved since is a {@link WriteConflict} (first updater wins),
 * so no update is ever lost although rows are not locked until written. Money rows are locked
 * explicitly ({@link lock}) before they are read, so they never conflict.
 */
export class DbTransaction {
  private pending: Statement[] = [];
  private readonly versions = new Map<string, number>();
  /** Records locked ({@link lock}) by this transaction, and those of them read only after their lock. */
  private readonly locked = new Set<string>();
  private readonly guarded = new Set<string>();
  /** Advisory lock keys this transaction holds (asked for, queued or sent). */
  private readonly held = new Set<bigint>();
  private savepoints = 0;
  /** Whether a store transaction's work was kept in this one (a later failure must then roll back to a savepoint). */
  kept = false;
  /** Collections written by this transaction (announced to other processes at commit). */
  readonly changed = new Set<string>();

  private constructor(
    private readonly conn: ReservedSql | Sql,
    private readonly sequences: Sequences,
    /** False for reads outside any unit: each statement on its own, no connection held. */
    private readonly reserved: boolean,
  ) {}

  /** Reserves a connection and queues BEGIN (sent with the first batch). */
  static async begin(sql: Sql, sequences: Sequences): Promise<DbTransaction> {
    const conn = await sql.reserve();
    const tx = new DbTransaction(conn, sequences, true);
    tx.pending.push({ text: 'BEGIN ISOLATION LEVEL READ COMMITTED', params: [] });
    return tx;
  }

  /** Reads outside any unit: every statement from the pool, seeing what is committed. */
  static reader(sql: Sql, sequences: Sequences): DbTransaction {
    return new DbTransaction(sql, sequences, false);
  }

  /** Whether this transaction wrote anything. */
  get wrote(): boolean {
    return this.changed.size > 0;
  }

  /** Sends the queued statements and `last` (if any) as one batch; answers `last`'s rows. */
  private async send(last?: Statement): Promise<ReadonlyArray<Record<string, unknown>> & { count: number }> {
    const batch = this.pending;
    this.pending = [];
    if (last) batch.push(last);
    if (batch.length === 0) return Object.assign([], { count: 0 });
    const results = await Promise.all(batch.map((statement) => this.conn.unsafe(statement.text, statement.params as never[], { prepare: true })));
    for (let i = 0; i < batch.length; i++) batch[i]!.check?.(results[i] as never);
    return results[results.length - 1] as never;
  }

  /** Sends whatever is queued. */
  flush(): Promise<unknown> {
    return this.send();
  }

  async get<T>(collection: string, id: string): Promise<T | undefined> {
    const [row] = await this.send({ text: `SELECT record, version FROM ${RECORDS} WHERE collection = $1 AND id = $2`, params: [collection, id] });
    this.remember(collection, id, row ? (row.version as number) : ABSENT);
    if (!row) return undefined;
    return JSON.parse(row.record as string) as T;
  }

  async page<T>(collection: string, query: PageQuery): Promise<PageResult<T>> {
    const limit = Math.min(query.limit, NO_LIMIT) + 1;
    const rows =
      query.order === 'oldest'
        ? await this.send({
            text: `SELECT id, record, position, version FROM ${RECORDS} WHERE collection = $1 AND part = $2 AND position > $3 ORDER BY position ASC LIMIT $4`,
            params: [collection, query.partition, query.after ?? 0, limit],
          })
        : await this.send({
            text: `SELECT id, record, position, version FROM ${RECORDS} WHERE collection = $1 AND part = $2 AND position < $3 ORDER BY position DESC LIMIT $4`,
            params: [collection, query.partition, query.before ?? Number.MAX_SAFE_INTEGER, limit],
          });
    return this.positioned<T>(collection, rows, query.limit);
  }

  /** Turns page rows into positioned records, remembering their versions. */
  private positioned<T>(collection: string, rows: ReadonlyArray<Record<string, unknown>>, limit: number): PageResult<T> {
    const hasMore = rows.length > limit;
    const count = hasMore ? limit : rows.length;
    const items: Positioned<T>[] = new Array(count);
    for (let i = 0; i < count; i++) {
      const row = rows[i]!;
      this.remember(collection, row.id as string, row.version as number);
      items[i] = { record: JSON.parse(row.record as string) as T, position: Number(row.position) };
    }
    return { items, hasMore };
  }

  async all<T>(collection: string): Promise<T[]> {
    const rows = await this.send({ text: `SELECT id, record, version FROM ${RECORDS} WHERE collection = $1 ORDER BY position`, params: [collection] });
    return rows.map((row) => {
      this.remember(collection, row.id as string, row.version as number);
      return JSON.parse(row.record as string) as T;
    });
  }

  async count(collection: string, partition?: string): Promise<number> {
    const [row] =
      partition === undefined
        ? await this.send({ text: `SELECT count(*)::int AS n FROM ${RECORDS} WHERE collection = $1`, params: [collection] })
        : await this.send({ text: `SELECT count(*)::int AS n FROM ${RECORDS} WHERE collection = $1 AND part = $2`, params: [collection, partition] });
    return row!.n as number;
  }

  async lastPosition(collection: string): Promise<number> {
    const sequence = await this.sequences.known(collection);
    if (!sequence) return 0;
    // The name is one Sequences made (letters, digits, underscores): safe as an identifier.
    const [row] = await this.send({ text: `SELECT last_value, is_called FROM ${sequence}`, params: [] });
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
    const sequence = await this.sequences.ensure(collection);
    this.changed.add(collection);
    const row = [collection, id, partition, sequence, JSON.stringify(record) ?? 'null'];
    // Right behind another insert still queued: one statement of several rows (evaluated in
    // order, so positions are drawn in the order of the inserts).
    const previous = this.pending.at(-1);
    const rows = previous ? INSERT_ROWS.get(previous.text) : undefined;
    if (previous && rows !== undefined && rows < MAX_INSERT_ROWS) {
      previous.text = INSERT_TEXTS[rows]!;
      previous.params.push(...row);
    } else this.pending.push({ text: INSERT_TEXTS[0]!, params: row });
    this.versions.set(keyOf(collection, id), 0);
    // Nobody else sees a row this transaction inserted until it commits.
    this.guarded.add(keyOf(collection, id));
  }

  async update(collection: string, id: string, record: unknown): Promise<void> {
    const key = keyOf(collection, id);
    const seen = this.versions.get(key);
    this.changed.add(collection);
    this.pending.push({
      text: `UPDATE ${RECORDS} SET record = $3, version = version + 1 WHERE collection = $1 AND id = $2 AND ($4::int IS NULL OR version = $4)`,
      params: [collection, id, JSON.stringify(record) ?? 'null', seen ?? null],
      guarded: this.guarded.has(key),
      check: (rows) => {
        if (rows.count > 0) return;
        if (seen !== undefined) throw new WriteConflict(collection, id);
        throw new Error(`no record ${id} in ${collection}`);
      },
    });
    if (seen !== undefined) this.versions.set(key, seen + 1);
  }

  async remove(collection: string, id: string): Promise<boolean> {
    const key = keyOf(collection, id);
    const seen = this.versions.get(key);
    const rows = await this.send({
      text: `DELETE FROM ${RECORDS} WHERE collection = $1 AND id = $2 AND ($3::int IS NULL OR version = $3) RETURNING 1`,
      params: [collection, id, seen === ABSENT ? null : (seen ?? null)],
    });
    this.versions.delete(key);
    // Read as absent, found now: another transaction created it since (this one is undone and runs again).
    if (seen === ABSENT && rows.length > 0) throw new WriteConflict(collection, id);
    if (rows.length === 0) {
      if (seen === ABSENT) return false;
      if (seen !== undefined) throw new WriteConflict(collection, id);
      return false;
    }
    this.changed.add(collection);
    return true;
  }

  /**
   * Takes transaction-scoped advisory locks on the records, in key order (no deadlock between two
   * lockers). The statement is queued, not sent: it goes in the same batch as the next read (or
   * the COMMIT), and the server runs a batch in order, so that read still waits for the lock. A
   * lock this transaction already holds is not asked for again.
   */
  async lock(collection: string, ids: readonly string[]): Promise<void> {
    const wanted: bigint[] = [];
    for (const id of ids) {
      this.locked.add(keyOf(collection, id));
      const key = lockKey(collection, id);
      if (!this.held.has(key)) {
        this.held.add(key);
        wanted.push(key);
      }
    }
    if (wanted.length === 0) return;
    const keys = wanted.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map(String);
    // Right behind another lock still queued: one statement takes both, in the same order.
    const previous = this.pending.at(-1);
    if (previous?.text === LOCK) (previous.params[0] as string[]).push(...keys);
    else this.pending.push({ text: LOCK, params: [keys] });
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
    const previous = this.pending.at(-1);
    if (previous?.text === LOCK) (previous.params[0] as string[]).push(String(key));
    else this.pending.push({ text: LOCK, params: [[String(key)]] });
  }

  /** Opens a savepoint (queued); answers its name for {@link release} or {@link rollbackTo}. */
  savepoint(): string {
    const name = `s${++this.savepoints}`;
    this.pending.push({ text: `SAVEPOINT ${name}`, params: [] });
    return name;
  }

  /** Ends a savepoint whose work stays (queued). */
  release(name: string): void {
    this.pending.push({ text: `RELEASE SAVEPOINT ${name}`, params: [] });
  }

  /** Undoes the work since the savepoint: statements not yet sent are dropped, the rest rolled back. */
  async rollbackTo(name: string): Promise<void> {
    // Locks asked for inside the savepoint are dropped or released with it; asking again for one
    // still held is harmless.
    this.held.clear();
    const at = this.pending.findIndex((statement) => statement.text === `SAVEPOINT ${name}`);
    if (at >= 0) {
      this.pending.length = at;
      return;
    }
    this.pending = [];
    await this.send({ text: `ROLLBACK TO SAVEPOINT ${name}`, params: [] });
    this.release(name);
    // Versions read inside the savepoint may be of rows it wrote; forgetting them only skips checks.
    this.versions.clear();
    this.guarded.clear();
  }

  /** Sends what is queued, `extra` statements (a NOTIFY) and COMMIT; gives the connection back. */
  async commit(extra: Array<{ text: string; params: unknown[] }> = []): Promise<void> {
    try {
      // Queued writes with a check (first updater wins) go first, on their own: sent in one
      // pipelined batch with COMMIT, the rest of the transaction would be committed before the
      // check saw that an update matched no row (a lost update, a quota passed).
      // Money rows, locked before they were read, are exempt: no other writer can have moved them,
      // so a send keeps its single round trip.
      if (this.pending.some((statement) => statement.check && !statement.guarded)) await this.send();
      this.pending.push(...extra);
      await this.send({ text: 'COMMIT', params: [] });
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
    const began = !this.pending[0]?.text.startsWith('BEGIN');
    this.pending = [];
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
