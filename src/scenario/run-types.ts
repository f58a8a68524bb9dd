import type { MetricsData } from './run-metrics.js';

/** Options of `runScenario`; each overrides the scenario's own default. */
export interface RunOptions {
  seed?: number;
  agents?: number;
  /** Service time to cover (`24h`). */
  duration?: string;
  /** Write the JSONL trace to this file (it is hashed either way). */
  tracePath?: string;
  /** Called after every step (progress display). */
  onStep?: (progress: StepProgress) => void;
}

/** Where a run is, after a step. */
export interface StepProgress {
  step: number;
  steps: number;
  /** Service time, ISO 8601. */
  now: string;
  agentSteps: number;
  calls: number;
  events: number;
}

/** An invariant that did not hold. */
export interface BrokenInvariant {
  name: string;
  step: number;
  /** Service time of the step, ISO 8601. */
  at: string;
  message: string;
}

/** The first errors policies let escape (the rest are only counted). */
export interface PolicyFailure {
  agent: string;
  step: number;
  message: string;
}

/** What a run did. */
export interface ScenarioResult {
  scenario: string;
  description: string;
  seed: number;
  agents: number;
  duration: string;
  durationSeconds: number;
  stepSeconds: number;
  /** Steps the run was to take, and steps it took (fewer when an invariant broke). */
  steps: number;
  stepsRun: number;
  agentSteps: number;
  calls: number;
  events: number;
  /** Error code → how many calls answered it. */
  errors: Record<string, number>;
  /** Event type → count. */
  eventTypes: Record<string, number>;
  policyErrors: number;
  firstPolicyErrors: PolicyFailure[];
  invariants: string[];
  broken: BrokenInvariant | null;
  /** Service time at the start and at the end. */
  start: string;
  end: string;
  /** Hex SHA-256 of the JSONL trace. */
  sha256: string;
  traceLines: number;
  traceBytes: number;
  /** What the report plots. */
  metrics: MetricsData;
}
