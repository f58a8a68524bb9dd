import type { ReservedSql, Sql } from 'postgres';
import { RUN_BATCH } from './batch-function.js';

/** A row agent_services_batch answers: `i` the op it answers, `n` a position, count or row count. */
export interface Row {
  i: number;
  id: string | null;
  record: string | null;
  version: number | null;
  /** bigint, as postgres.js gives it (text). */
  n: string | null;
}

/**
 * Something waiting to be sent with a transaction's next batch: an op of agent_services_batch
 * (consecutive ops travel as one statement), or a statement of its own (transaction control, a
 * sequence read).
 */
export interface Statement {
  op?: unknown[];
  text?: string;
  params?: unknown[];
  /** What to do with the answer's rows (never throws). */
  take?: (rows: Row[]) => void;
  /** What a failure of this op means to the caller (a conflict on a record, a cached read gone stale). */
  failure?: (error: unknown) => unknown;
}

const RECORDS = 'agent_services_records';

/**
 * Ops that, alone in their run, go as a plain prepared statement: the batch function's call (its
 * JSON, its PL/pgSQL frame) costs the server more than the op itself (a lone unlock: about 27 µs
 * of PostgreSQL CPU through the function against 18 µs plain, in a probe on the 2-core test machine).
 */
const ALONE: Record<string, { text: string; params: (op: unknown[]) => unknown[] }> = {
  g: { text: `SELECT 0 AS i, id, record, version, NULL::bigint AS n FROM ${RECORDS} WHERE collection = $1 AND id = $2`, params: (op) => [op[1], op[2]] },
  po: {
    text: `SELECT 0 AS i, id, record, version, position AS n FROM ${RECORDS} WHERE collection = $1 AND part = $2 AND position > $3 ORDER BY position ASC LIMIT $4`,
    params: (op) => op.slice(1, 5),
  },
  pn: {
    text: `SELECT 0 AS i, id, record, version, position AS n FROM ${RECORDS} WHERE collection = $1 AND part = $2 AND position < $3 ORDER BY position DESC LIMIT $4`,
    params: (op) => op.slice(1, 5),
  },
  st: { text: 'SELECT 0 AS i, NULL::text AS id, NULL::text AS record, NULL::integer AS version, pg_try_advisory_lock($1::bigint)::integer::bigint AS n', params: (op) => [op[1]] },
  su: { text: 'SELECT 0 AS i, NULL::text AS id, NULL::text AS record, NULL::integer AS version, pg_advisory_unlock($1::bigint)::integer::bigint AS n', params: (op) => [op[1]] },
};

/** The statement that sends a run of ops: the batch function, or a lone op as itself. */
export function runOf(ops: unknown[][]): { text: string; params: unknown[] } {
  const alone = ops.length === 1 ? ALONE[ops[0]![0] as string] : undefined;
  return alone ? { text: alone.text, params: alone.params(ops[0]!) } : { text: RUN_BATCH, params: [JSON.stringify(ops)] };
}

/** The op a failure of the batch function names (its DETAIL), if any. */
function failedOp(error: unknown): number | undefined {
  const detail = (error as { detail?: unknown } | null)?.detail;
  return typeof detail === 'string' && /^\d+$/.test(detail) ? Number(detail) : undefined;
}

/**
 * Sends `batch` in one round trip, pipelined, each run of consecutive ops as ONE statement (one
 * Bind/Execute/Sync, one answer), and hands each its rows (`take`); answers the rows of the last.
 * @throws the first failure in batch order, as its op's `failure` reads it
 */
export async function sendBatch(conn: ReservedSql | Sql, batch: readonly Statement[]): Promise<Row[]> {
  if (batch.length === 0) return [];
  const calls: Array<{ from: number; ops: unknown[][] | undefined }> = [];
  for (let at = 0; at < batch.length; at++) {
    const op = batch[at]!.op;
    const open = calls.at(-1);
    if (op && open?.ops) open.ops.push(op);
    else calls.push({ from: at, ops: op ? [op] : undefined });
  }
  // postgres.js sends a query when it is first awaited: each is taken here, in batch order.
  const settled = await Promise.allSettled(
    calls.map(({ from, ops }) => {
      const { text, params } = ops ? runOf(ops) : { text: batch[from]!.text!, params: batch[from]!.params ?? [] };
      return conn.unsafe(text, params as never[], { prepare: true });
    }),
  );
  const results: Row[][] = batch.map(() => []);
  for (let c = 0; c < calls.length; c++) {
    const { from, ops } = calls[c]!;
    const outcome = settled[c]!;
    if (outcome.status === 'rejected') {
      // The first failure in batch order is the cause; the statements behind it only found the
      // transaction aborted.
      const op = ops ? failedOp(outcome.reason) : undefined;
      const failure = op === undefined ? undefined : batch[from + op]?.failure;
      throw failure ? failure(outcome.reason) : outcome.reason;
    }
    const rows = outcome.value as unknown as Row[];
    if (!ops) results[from] = rows;
    else for (const row of rows) results[from + row.i]!.push(row);
  }
  for (let at = 0; at < batch.length; at++) batch[at]!.take?.(results[at]!);
  return results[batch.length - 1]!;
}
