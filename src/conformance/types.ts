import type { ConformanceTarget } from './target.js';
import type { ConformanceAgent, AgentSetup } from './agents.js';

/** The areas the suite covers, in the order it runs them; `service` holds the cross-cutting rules (errors, idempotency, auth). */
export const AREAS = ['service', 'identity', 'wallet', 'email', 'memory', 'phone', 'compute', 'browser', 'webhooks', 'policy'] as const;
/** One area of the suite (`--only` takes these names). */
export type Area = (typeof AREAS)[number];

/**
 * A capability a check needs beyond `/v1` and the core control plane; a target without it skips the
 * check: `raw` HTTP access, the fault language, a webhook `receiver` on this machine the target can reach.
 */
export type Need = 'raw' | 'faults' | 'receiver';

/** One check of the suite, written once against {@link ConformanceTarget}. */
export interface CheckDefinition {
  area: Area;
  /** What the check asserts, as a sentence ("a send above the balance is 402 insufficient_funds"). */
  name: string;
  /** Capabilities the check needs; missing ones skip it with the reason. */
  needs?: readonly Need[];
  /** True for fast-check properties: they print the seed and the shrunk calls on failure. */
  property?: boolean;
  run(context: CheckContext): Promise<void>;
}

/** What a check runs with. */
export interface CheckContext {
  target: ConformanceTarget;
  /** The fast-check seed of this run. */
  seed: number;
  /** fast-check runs per property. */
  runs: number;
  /** Creates an agent with a fresh name (and optional opening balances) and a client acting as it. */
  agent(setup?: AgentSetup): Promise<ConformanceAgent>;
  /** The command line that replays this check's area with this seed (for failure messages). */
  replay: string;
}

/** The outcome of one check. */
export interface CheckResult {
  area: Area;
  name: string;
  status: 'passed' | 'failed' | 'skipped';
  /** Why it failed, or why it was skipped. */
  message?: string;
  /** The seed a property check ran with (set on property checks). */
  seed?: number;
  /** Measured wall time of the check, for the spec reporter. */
  durationMs: number;
}
