import type { Sql } from 'postgres';
import { type Row, runOf } from './batch-sender.js';

/** Most ops one statement carries: a burst larger than this goes as a few statements. */
const MAX_OPS = 256;

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
        const { text, params } = runOf(ops);
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
