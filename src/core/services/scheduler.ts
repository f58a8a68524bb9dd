import { inject, injectable } from '../shared/di.js';
import { Clock, type TimerHandle } from '../ports/clock.js';
import { Random } from '../ports/random.js';
import { Store, type StoreTransaction } from '../ports/store.js';
import type { JobHandler, JobType } from './job-type.js';

/** Where jobs wait until they are due (operators' gauges read it too). */
export const JOBS = 'jobs';

/** A unit of deferred work, kept in the store so it survives snapshots and restarts. */
export interface Job {
  id: string;
  type: string;
  at_ms: number;
  /** JSON as stored; read only through the job type's schema. */
  data: unknown;
}

export { defineJob, type JobData, type JobHandler, type JobInfo, type JobType } from './job-type.js';

/**
 * Durable deferred work on the clock: SMS delivery, chain confirmations, bank settlement, webhook
 * retries, idle timeouts. Jobs are written inside the caller's transaction and armed on the clock
 * once it is applied; on the simulated clock they run in (time, scheduling) order.
 *
 * A job runs as one durable unit: its handler's writes and the job's removal become durable
 * together, so after a crash a job either ran completely (and is gone) or not at all (and runs
 * again once re-armed at start), never half or twice.
 */
@injectable()
export class Scheduler {
  private readonly handlers = new Map<string, { jobType: JobType<unknown>; handler: JobHandler<unknown> }>();
  private readonly timers = new Map<string, TimerHandle>();
  /** Jobs whose handler is running: re-arming must not start them a second time. */
  private readonly running = new Set<string>();

  /** A re-arm after other processes' job changes is under way (and another is wanted). */
  private resyncing: Promise<void> | undefined;
  private resyncAgain = false;

  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    @inject(Random) private readonly random: Random,
  ) {
    // Jobs other processes schedule get timers here too: whichever process runs one first runs it.
    store.shared?.onRemoteCommit(() => void this.resync(), { collections: [JOBS] });
  }

  /** Re-arms from the store after other processes changed jobs, one re-arm at a time. */
  resync(): Promise<void> {
    if (this.resyncing) {
      this.resyncAgain = true;
      return this.resyncing;
    }
    this.resyncing = (async () => {
      try {
        do {
          this.resyncAgain = false;
          await this.rearmAll();
        } while (this.resyncAgain);
      } catch {
        // The store is away: the next notice re-arms.
      } finally {
        this.resyncing = undefined;
      }
    })();
    return this.resyncing;
  }

  /** Registers the handler of a job type (once, at composition); it receives the data parsed by the type's schema. */
  handle<D>(jobType: JobType<D>, handler: JobHandler<D>): void {
    if (this.handlers.has(jobType.type)) throw new Error(`job type ${jobType.type} already has a handler`);
    this.handlers.set(jobType.type, { jobType, handler: handler as JobHandler<unknown> });
  }

  /**
   * Schedules a job in `tx`; it is armed when `tx` is applied. Returns the job id.
   * @throws Error for a type without a handler, or data its schema refuses (a programming error)
   */
  async schedule<D>(tx: StoreTransaction, atMs: number, jobType: JobType<D>, data: D): Promise<string> {
    if (!this.handlers.has(jobType.type)) throw new Error(`no handler for job type ${jobType.type}`);
    const checked = jobType.data.safeParse(data);
    if (!checked.success) throw new Error(`job ${jobType.type}: bad data: ${checked.error.message}`);
    const job: Job = { id: this.random.id('job'), type: jobType.type, at_ms: atMs, data: checked.data };
    await tx.insert(JOBS, job.id, job);
    // Armed before durability: a timer whose job never became durable finds no job and does nothing.
    tx.afterApply(() => this.arm(job));
    return job.id;
  }

  /** Cancels a scheduled job in `tx`; false if it already ran or never existed. */
  async cancel(tx: StoreTransaction, jobId: string): Promise<boolean> {
    const removed = await tx.remove(JOBS, jobId);
    if (removed) tx.afterApply(() => this.disarm(jobId));
    return removed;
  }

  /** Re-arms every stored job, e.g. after a restore or a restart; timers armed before are dropped. */
  async rearmAll(): Promise<void> {
    for (const id of [...this.timers.keys()]) this.disarm(id);
    for (const job of await this.store.view.all<Job>(JOBS)) if (!this.running.has(job.id)) this.arm(job);
  }

  /** How many jobs wait to run (a running job counts until it is done). */
  pending(): Promise<number> {
    return this.store.view.count(JOBS);
  }

  private arm(job: Job): void {
    this.timers.get(job.id)?.cancel();
    this.timers.set(
      job.id,
      this.clock.setTimer(job.at_ms, () => this.run(job.id)),
    );
  }

  private disarm(jobId: string): void {
    this.timers.get(jobId)?.cancel();
    this.timers.delete(jobId);
  }

  /** Runs a due job and removes it in the same durable unit; a handler's failure still removes it (as before), then is rethrown. */
  private async run(jobId: string): Promise<void> {
    this.timers.delete(jobId);
    const job = await this.store.view.get<Job>(JOBS, jobId);
    if (!job || this.running.has(jobId)) return;
    this.running.add(jobId);
    let failure: { error: unknown } | undefined;
    let later: Job | undefined;
    try {
      await this.store.unit(
        async () => {
          // Read again: a restore may have replaced the world while the unit waited to start. On
          // a shared store the job is locked first: another process running it holds this one
          // until it commits, and then it is gone (each job runs exactly once).
          const current = this.store.shared
            ? await this.store.transaction(async (tx) => {
                await tx.lock(JOBS, [jobId]);
                return tx.get<Job>(JOBS, jobId);
              })
            : await this.store.view.get<Job>(JOBS, jobId);
          if (!current) return;
          if (current.at_ms > this.clock.now()) return void (later = current);
          try {
            const { jobType, handler } = this.handlers.get(current.type)!;
            // Stored data is read back through the schema too: a snapshot written by another
            // version fails here, loudly, instead of inside the handler.
            const data = jobType.data.safeParse(current.data);
            if (!data.success) throw new Error(`job ${current.id} (${current.type}): stored data does not fit its schema: ${data.error.message}`);
            await handler(data.data, { id: current.id, type: current.type, at_ms: current.at_ms });
          } catch (error) {
            failure = { error };
          }
        },
        async (tx) => {
          if (later === undefined) await tx.remove(JOBS, jobId);
        },
      );
    } finally {
      this.running.delete(jobId);
    }
    if (later) this.arm(later);
    if (failure) throw failure.error;
  }
}
