import { inject, injectable } from '../shared/di.js';
import { Clock, type TimerHandle } from '../ports/clock.js';
import { Random } from '../ports/random.js';
import { Store, type StoreTransaction } from '../ports/store.js';
import type { Json } from '../shared/json.js';

const JOBS = 'jobs';

/** A unit of deferred work, kept in the store so it survives snapshots and restarts. */
export interface Job {
  id: string;
  type: string;
  at_ms: number;
  data: { [key: string]: Json };
}

/** Runs a job of one type when it falls due. */
export type JobHandler = (job: Job) => void | Promise<void>;

/**
 * Durable deferred work on the clock: SMS delivery, chain confirmations, bank settlement, webhook
 * retries, idle timeouts. Jobs are written inside the caller's transaction and armed on the clock
 * only once it commits; on the simulated clock they run in (time, scheduling) order.
 */
@injectable()
export class Scheduler {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly timers = new Map<string, TimerHandle>();

  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    @inject(Random) private readonly random: Random,
  ) {}

  /** Registers the handler of a job type (once, at composition). */
  handle(type: string, handler: JobHandler): void {
    if (this.handlers.has(type)) throw new Error(`job type ${type} already has a handler`);
    this.handlers.set(type, handler);
  }

  /** Schedules a job in `tx`; it is armed when `tx` commits. Returns the job id. */
  schedule(tx: StoreTransaction, atMs: number, type: string, data: Job['data']): string {
    if (!this.handlers.has(type)) throw new Error(`no handler for job type ${type}`);
    const job: Job = { id: this.random.id('job'), type, at_ms: atMs, data };
    tx.insert(JOBS, job.id, job);
    tx.afterCommit(() => this.arm(job));
    return job.id;
  }

  /** Cancels a scheduled job in `tx`; false if it already ran or never existed. */
  cancel(tx: StoreTransaction, jobId: string): boolean {
    const removed = tx.remove(JOBS, jobId);
    if (removed) tx.afterCommit(() => this.disarm(jobId));
    return removed;
  }

  /** Re-arms every stored job, e.g. after a restore; timers armed before are dropped. */
  rearmAll(): void {
    for (const id of [...this.timers.keys()]) this.disarm(id);
    for (const job of this.store.view.all<Job>(JOBS)) this.arm(job);
  }

  /** How many jobs wait to run. */
  pending(): number {
    return this.store.view.count(JOBS);
  }

  private arm(job: Job): void {
    this.timers.set(job.id, this.clock.setTimer(job.at_ms, () => this.run(job.id)));
  }

  private disarm(jobId: string): void {
    this.timers.get(jobId)?.cancel();
    this.timers.delete(jobId);
  }

  private async run(jobId: string): Promise<void> {
    this.timers.delete(jobId);
    const job = await this.store.transaction((tx) => {
      const found = tx.get<Job>(JOBS, jobId);
      if (found) tx.remove(JOBS, jobId);
      return found;
    });
    if (job) await this.handlers.get(job.type)!(job);
  }
}
