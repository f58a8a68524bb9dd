import { Clock } from '../ports/clock.js';
import { EventLog } from '../ports/event-log.js';
import { Random } from '../ports/random.js';
import { Sandbox } from '../ports/sandbox.js';
import { Store, type StoreTransaction } from '../ports/store.js';
import { inject, injectable } from '../shared/di.js';
import { ComputeConfig } from './compute-config.js';
import type { RunResult } from './compute.schema.js';
import { FilesystemService } from './filesystem.service.js';
import { PolicyService } from '../policy/policy.service.js';

/** Parsed body of a run (defaults applied). */
export interface ParsedRun {
  runtime: 'python' | 'typescript' | 'bash';
  code: string;
  /** Absent: 30, or the smaller of 30 and the policy's `max_timeout_seconds`. */
  timeout_seconds?: number;
}

/**
 * Code runs: a fresh interpreter in the sandbox over a copy of the agent's files, time frozen at
 * the clock's reading and randomness seeded from the runtime's random port; the run's changes
 * are kept only when it exits by itself, in one transaction with its `compute.run.completed`.
 */
@injectable()
export class ComputeService {
  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    @inject(Random) private readonly random: Random,
    @inject(EventLog) private readonly events: EventLog,
    @inject(Sandbox) private readonly sandbox: Sandbox,
    @inject(FilesystemService) private readonly files: FilesystemService,
    @inject(ComputeConfig) private readonly config: ComputeConfig,
    @inject(PolicyService) private readonly policies: PolicyService,
  ) {}

  /**
   * Runs code for an agent; whatever the code does is the answer (exit code, output). The run is
   * checked against the agent's policy before it starts, and counted (checked again) in the
   * transaction that keeps its outcome.
   * @throws ApiError 403 policy_violation (`timeout_seconds` over the policy's ceiling, `code` past the day's runs)
   * @throws RunCancelled when `signal` ended the run (nothing of it is kept)
   */
  run(agentId: string, body: ParsedRun, signal?: AbortSignal): Promise<RunResult> {
    return this.policies.enforced(agentId, 'compute.run', async () => {
      const timeoutSeconds = await this.policies.precheckRun(agentId, body.timeout_seconds);
      return this.runChecked(agentId, { ...body, timeout_seconds: timeoutSeconds }, signal);
    });
  }

  private async runChecked(agentId: string, body: ParsedRun & { timeout_seconds: number }, signal?: AbortSignal): Promise<RunResult> {
    const entries = await this.files.snapshot(agentId);
    const seed = this.random.bytes(32);
    const result = await this.sandbox.run({
      runtime: body.runtime,
      code: body.code,
      timeoutSeconds: body.timeout_seconds,
      entries,
      quotaBytes: this.config.quotaBytes,
      memoryLimitBytes: this.config.memoryLimitBytes,
      outputLimitBytes: this.config.outputLimitBytes,
      nowMs: this.clock.now(),
      seed,
      ...(signal ? { signal } : {}),
    });
    // A run cut by its call's signal (the request's deadline, the caller gone, the runtime closing)
    // keeps nothing, not even its event: the dispatcher answers 504 upstream_timeout at a deadline.
    if (signal?.aborted) throw new RunCancelled();
    const changes = result.changes;
    const stored = changes ? await this.files.storeChanges(changes) : undefined;
    // duration_ms is measured time: it stays out of the log so the same seed gives the same log.
    const completed = async (tx: StoreTransaction, exitCode: number) => {
      await this.policies.countRun(tx, agentId);
      await this.events.append(tx, { type: 'compute.run.completed', agent_id: agentId, data: { runtime: body.runtime, exit_code: exitCode } });
    };
    try {
      await this.store.transaction(async (tx) => {
        if (changes && stored && !(await this.files.applyChanges(tx, agentId, changes, stored))) throw new PastQuota();
        await completed(tx, result.exitCode);
      });
    } catch (error) {
      if (!(error instanceof PastQuota)) throw error;
      // Runs in parallel each fit their own starting tree; together they would not: keep none of this one's changes.
      await this.store.transaction(async (tx) => {
        await completed(tx, 1);
      });
      const note = `quota exceeded: the run's files would take the filesystem past its quota of ${this.config.quotaBytes} bytes; none of its changes were kept\n`;
      const stderr = result.stderr === '' || result.stderr.endsWith('\n') ? result.stderr + note : `${result.stderr}\n${note}`;
      return { stdout: result.stdout, stderr, exit_code: 1, duration_ms: result.durationMs };
    }
    return { stdout: result.stdout, stderr: result.stderr, exit_code: result.exitCode, duration_ms: result.durationMs };
  }
}

/** Thrown when the call's signal ended the run: not an answer of the run, so nothing is written. */
class RunCancelled extends Error {
  constructor() {
    super('the run was cancelled by its call');
  }
}

/** Thrown inside a run's transaction to undo it when its changes would pass the quota. */
class PastQuota extends Error {}
