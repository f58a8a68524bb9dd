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
    calls.map(({ from, ops }) => (ops ? conn.unsafe(RUN_BATCH, [JSON.stringify(ops)], { prepare: true }) : conn.unsafe(batch[from]!.text!, (batch[from]!.params ?? []) as never[], { prepare: true }))),
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
