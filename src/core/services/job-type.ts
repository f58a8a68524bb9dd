import type { z } from 'zod';

/**
 * One kind of deferred work, declared once like a route: its stable name and the zod schema of
 * its data. Scheduling checks the data against the schema (a wrong field fails at the call, not
 * hours of service time later when the job runs), and the handler receives the parsed data typed
 * by the same schema, so nothing reads `job.data` back with a cast.
 */
export interface JobType<D> {
  /** Stable name, `<area>.<what>`; stored with every job, so it never changes once released. */
  readonly type: string;
  /** What the job carries: plain JSON (jobs live in the store and in snapshots). */
  readonly data: z.ZodType<D>;
}

/** The data a job type carries. */
export type JobData<J> = J extends JobType<infer D> ? D : never;

/** Declares a job type: its name and the schema of its data. */
export function defineJob<D>(type: string, data: z.ZodType<D>): JobType<D> {
  return { type, data };
}

/** What a handler learns about the job it runs besides its data. */
export interface JobInfo {
  id: string;
  type: string;
  at_ms: number;
}

/**
 * Runs a job of one type when it falls due, inside the job's durable unit, with the job's data
 * parsed by its type's schema: outside calls (HTTP, carriers) go through `store.outside`, which
 * runs them once the unit is durable.
 */
export type JobHandler<D> = (data: D, job: JobInfo) => void | Promise<void>;
