import type { ReservedSql, Sql } from 'postgres';
import { type Row, sendBatch, type Statement } from './batch-sender.js';

/**
 * The statements of one PostgreSQL transaction waiting for their round trip: writes, locks and
 * checks are queued and leave with the next read that must be answered (or the COMMIT), as one
 * batch (see {@link sendBatch}).
 */
export class StatementQueue {
  /** What the next batch carries, in order. */
  pending: Statement[] = [];
  /** Reads queued by {@link read} and how to fail them, until the batch that carries them is answered. */
  private readonly waiting = new Map<Statement, (error: unknown) => void>();
  /** The send {@link read} scheduled, until it starts. */
  private sending: Promise<unknown> | undefined;
  private savepoints = 0;

  /** @param failed called when a batch fails, before its reads are failed */
  constructor(
    private readonly conn: ReservedSql | Sql,
    private readonly failed: () => void,
  ) {}

  /**
   * Sends the queued statements and `last` (if any) as one batch; answers `last`'s rows.
   * @throws the batch's first failure
   */
  async send(last?: Statement): Promise<Row[]> {
    const batch = this.pending;
    this.pending = [];
    if (last) batch.push(last);
    try {
      return await sendBatch(this.conn, batch);
    } catch (error) {
      this.failed();
      for (const statement of batch) this.waiting.get(statement)?.(error);
      throw error;
    } finally {
      if (this.waiting.size > 0) for (const statement of batch) this.waiting.delete(statement);
    }
  }

  /**
   * Queues a read and sends it, with what else is queued, once the current synchronous work is
   * done: reads asked for together (`Promise.all`) travel in one batch, as one statement.
   */
  read(op: unknown[]): Promise<Row[]> {
    return new Promise<Row[]>((resolve, reject) => {
      const statement: Statement = { op, take: resolve };
      this.waiting.set(statement, reject);
      this.pending.push(statement);
      // A send made meanwhile takes the read along; a failure reaches each read through `waiting`.
      this.sending ??= Promise.resolve().then(() => {
        this.sending = undefined;
        return this.send().catch(() => undefined);
      });
    });
  }

  /** Queues a new savepoint; answers its name. */
  savepoint(): string {
    const name = `s${++this.savepoints}`;
    this.pending.push({ text: `SAVEPOINT ${name}` });
    return name;
  }

  /** Queues the end of a savepoint whose work stays. */
  release(name: string): void {
    this.pending.push({ text: `RELEASE SAVEPOINT ${name}` });
  }

  /**
   * Undoes what followed the savepoint: drops it with the statements queued behind it when it was
   * not sent yet (false), else rolls the database back to it and ends it (true: what was sent
   * since is undone).
   */
  async rollbackTo(name: string): Promise<boolean> {
    const at = this.pending.findIndex((statement) => statement.text === `SAVEPOINT ${name}`);
    if (at >= 0) {
      this.drop(at);
      return false;
    }
    this.drop(0);
    await this.send({ text: `ROLLBACK TO SAVEPOINT ${name}` });
    this.release(name);
    return true;
  }

  /** Drops the statements queued from `at` on; a read among them fails rather than waiting for ever. */
  drop(at: number): void {
    for (const statement of this.pending.splice(at)) {
      const fail = this.waiting.get(statement);
      if (!fail) continue;
      this.waiting.delete(statement);
      fail(new Error('the transaction was rolled back before this read was sent'));
    }
  }
}
