import type { Sql } from 'postgres';
import { type Row, runOf } from './batch-sender.js';

/** Most ops one statement carries: a burst larger than this goes as a few statements. */
const MAX_OPS = 256;
/** Longest ops that ride ({@link GroupedBatches.ride}) wait for a statement to go with, in ms, by default. */
export const RIDE_WAIT_MS = 10;

interface Waiting {
  ops: unknown[][];
  resolve: (rows: Row[][]) => void;
  reject: (error: unknown) => void;
  /** Whether it may wait for another statement to go with (see {@link GroupedBatches.ride}). */
  rides: boolean;
}

/**
 * Ops of `agent_services_batch` sent over one connection, grouped as a commit log groups commits:
 * while a statement is out, the ops asked for meanwhile wait, and go together as the next
 * statement once it returns. A request made while nothing is out goes at once (with any made in
 * the same turn); only ops that ride ({@link ride}) wait, for the next statement or a short timer.
 * Every statement costs the server a parse of its message, a Sync and a ReadyForQuery whatever it
 * carries, so under load many callers share one.
 */
export class GroupedBatches {
  private readonly waiting: Waiting[] = [];
  private sending = false;
  /** Sends what rides once it waited `rideWaitMs` without a statement to go with. */
  private timer: NodeJS.Timeout | undefined;

  /**
   * @param pool a pool of one connection, which every statement goes over
   * @param rideWaitMs longest ops that ride wait for a statement to go with
   */
  constructor(
    private readonly pool: Sql,
    private readonly rideWaitMs = RIDE_WAIT_MS,
  ) {}

  /**
   * Sends `ops`, in their order, with whatever else waits (others' ops may come before them in
   * the same statement). Answers the rows of each op.
   * @throws the statement's failure: none of its ops then counts as done, though some may have run
   */
  send(ops: unknown[][]): Promise<Row[][]> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ ops, resolve, reject, rides: false });
      if (!this.sending) void this.drain();
    });
  }

  /**
   * {@link send}, for ops that need not go at once (a claim's end whose outcome is stored): they
   * go with the next statement sent for someone else, or on their own after `rideWaitMs`, so
   * under load they cost no statement.
   */
  ride(ops: unknown[][]): Promise<Row[][]> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ ops, resolve, reject, rides: true });
      if (!this.sending) this.waitToRide();
    });
  }

  private waitToRide(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      if (!this.sending && this.waiting.length > 0) void this.drain();
    }, this.rideWaitMs);
    // Nothing to keep a process up for: a closing connection gives its claims back anyway.
    this.timer.unref();
  }

  private async drain(): Promise<void> {
    this.sending = true;
    clearTimeout(this.timer);
    this.timer = undefined;
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
      // What is left only rides: it waits for the next statement asked for, or its turn.
      if (this.waiting.every((waiting) => waiting.rides)) break;
    }
    this.sending = false;
    if (this.waiting.length > 0) this.waitToRide();
  }
}
