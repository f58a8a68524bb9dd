import type { Sql } from 'postgres';
import { RUN_BATCH } from './batch-function.js';
import type { Row } from './batch-sender.js';

/** Most ops one statement carries: a burst larger than this goes as a few statements. */
const MAX_OPS = 256;

/**
 * Ops that, alone in their statement, go as a plain prepared statement: the batch function's call
 * (its JSON, its PL/pgSQL frame) costs the server more than the op (a lone unlock: about 27 µs of
 * PostgreSQL CPU through the function against 18 µs plain, in a probe on the 2-core test machine).
 */
const ALONE: Record<string, string> = {
  st: 'SELECT 0 AS i, NULL::text AS id, NULL::text AS record, NULL::integer AS version, pg_try_advisory_lock($1::bigint)::integer::bigint AS n',
  su: 'SELECT 0 AS i, NULL::text AS id, NULL::text AS record, NULL::integer AS version, pg_advisory_unlock($1::bigint)::integer::bigint AS n',
  g: 'SELECT 0 AS i, id, record, version, NULL::bigint AS n FROM agent_services_records WHERE collection = $1 AND id = $2',
};

/** The statement that sends `ops`: the batch function, or a lone op as itself. */
function statementOf(ops: unknown[][]): { text: string; params: unknown[] } {
  const alone = ops.length === 1 ? ALONE[ops[0]![0] as string] : undefined;
  return alone ? { text: alone, params: ops[0]!.slice(1) } : { text: RUN_BATCH, params: [JSON.stringify(ops)] };
}

interface Waiting {
  ops: unknown[][];
  resolve: (rows: Row[][]) => void;
  reject: (error: unknown) => void;
}

/**
 * Ops of `agent_services_batch` sent over one connection, grouped as a commit log groups commits:
 * while a statement is out, the ops asked for meanwhile wait, and go together as the next
 * statement once it returns. No timer: a request made while nothing is out goes at once (with any
 * made in the same turn). Every statement costs the server a parse of its message, a Sync and a
 * ReadyForQuery whatever it carries, so under load many callers share one.
 */
export class GroupedBatches {
  private readonly waiting: Waiting[] = [];
  private sending = false;

  /** @param pool a pool of one connection, which every statement goes over */
  constructor(private readonly pool: Sql) {}

  /**
   * Sends `ops`, in their order, with whatever else waits (others' ops may come before them in
   * the same statement). Answers the rows of each op.
   * @throws the statement's failure: none of its ops then counts as done, though some may have run
   */
  send(ops: unknown[][]): Promise<Row[][]> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ ops, resolve, reject });
      if (!this.sending) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.sending = true;
    while (this.waiting.length > 0) {
      const group: Waiting[] = [];
      // A turn of the microtask queue before the group is taken: requests made in the same turn join.
      await Promise.resolve();
      let count = 0;
      while (this.waiting.length > 0 && (group.length === 0 || count + this.waiting[0]!.ops.length <= MAX_OPS)) {
        const next = this.waiting.shift()!;
        group.push(next);
        count += next.ops.length;
      }
      const ops = group.flatMap((waiting) => waiting.ops);
      try {
        const { text, params } = statementOf(ops);
        const rows = (await this.pool.unsafe(text, params as never[], { prepare: true })) as unknown as Row[];
        const byOp: Row[][] = ops.map(() => []);
        for (const row of rows) byOp[row.i]!.push(row);
        let at = 0;
        for (const waiting of group) {
          waiting.resolve(byOp.slice(at, at + waiting.ops.length));
          at += waiting.ops.length;
        }
      } catch (error) {
        for (const waiting of group) waiting.reject(error);
      }
    }
    this.sending = false;
  }
}
