import { ApiError } from '../core/shared/api-error.js';
import { agentMaker } from './agents.js';
import { CheckFailure, CheckSkipped } from './assert.js';
import { ALL_CHECKS } from './suites/index.js';
import type { ConformanceTarget } from './target.js';
import { AREAS, type Area, type CheckContext, type CheckDefinition, type CheckResult } from './types.js';

/** Default fast-check runs per property. */
export const DEFAULT_RUNS = 20;

/** How a run goes. */
export interface RunOptions {
  /** Only these areas (default: all). */
  only?: readonly Area[];
  /** The fast-check seed (default: drawn at random and reported). */
  seed?: number;
  /** fast-check runs per property (default {@link DEFAULT_RUNS}). */
  runs?: number;
  /** The command that replays an area with a seed, shown in property failures. */
  replay?: (area: Area, seed: number) => string;
  /** Called with each result as it comes (live reporters). */
  onResult?: (result: CheckResult) => void;
  /** The checks to run (default: the whole suite). */
  checks?: readonly CheckDefinition[];
}

/** The outcome of a run. */
export interface RunReport {
  seed: number;
  runs: number;
  results: CheckResult[];
  summary: { passed: number; failed: number; skipped: number };
}

/** A seed when none is given. */
export function randomSeed(): number {
  return Math.floor(Math.random() * 0x7fffffff);
}

/** The checks of `only` (all areas when empty), in suite order. @throws Error naming an unknown area */
export function selectChecks(only: readonly string[] | undefined, checks: readonly CheckDefinition[] = ALL_CHECKS): CheckDefinition[] {
  for (const area of only ?? []) {
    if (!(AREAS as readonly string[]).includes(area)) throw new Error(`unknown area "${area}" (areas: ${AREAS.join(', ')})`);
  }
  return checks.filter((item) => !only || only.length === 0 || only.includes(item.area));
}

/** Shared state of one run over one target. */
export interface RunState {
  target: ConformanceTarget;
  seed: number;
  runs: number;
  replay: (area: Area, seed: number) => string;
  agent: CheckContext['agent'];
}

/** Prepares running checks against a target. */
export function prepareRun(target: ConformanceTarget, options: Omit<RunOptions, 'onResult' | 'checks' | 'only'> = {}): RunState {
  const seed = options.seed ?? randomSeed();
  return {
    target,
    seed,
    runs: options.runs ?? DEFAULT_RUNS,
    replay: options.replay ?? ((area, s) => `agent-services conformance --base-url ${target.description ?? 'URL'} --only ${area} --seed ${s}`),
    agent: agentMaker(target),
  };
}

/** Why a check cannot run against this target, or undefined when it can. */
async function missingNeed(check: CheckDefinition, target: ConformanceTarget): Promise<string | undefined> {
  for (const need of check.needs ?? []) {
    if (need === 'raw' && !target.fetch) return 'needs raw HTTP access to read headers; this target is an in-process client';
    if (need === 'faults' && !(await target.control.faults())) return 'needs the fault language: the target has no /_sim/faults';
    if (need === 'receiver' && !target.reachesLoopback) return 'needs a webhook receiver the target can reach: the target is not on this machine';
  }
  return undefined;
}

/** Runs one check; never throws (a thrown error is the failure's message). */
export async function runCheck(check: CheckDefinition, state: RunState): Promise<CheckResult> {
  const started = performance.now();
  const base = { area: check.area, name: check.name, ...(check.property ? { seed: state.seed } : {}) };
  const done = (status: CheckResult['status'], message?: string): CheckResult => ({
    ...base,
    status,
    ...(message === undefined ? {} : { message }),
    durationMs: performance.now() - started,
  });
  try {
    const missing = await missingNeed(check, state.target);
    if (missing) return done('skipped', missing);
    await check.run({ target: state.target, seed: state.seed, runs: state.runs, agent: state.agent, replay: state.replay(check.area, state.seed) });
    return done('passed');
  } catch (error) {
    if (error instanceof CheckSkipped) return done('skipped', error.message);
    if (error instanceof CheckFailure) return done('failed', error.message);
    if (error instanceof ApiError) return done('failed', `unexpected ${error.status} ${error.code}: ${error.message}`);
    return done('failed', error instanceof Error ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}` : String(error));
  }
}

/** Runs the suite (or `only` its areas) against a target, one check after another. @throws Error for an unknown area */
export async function runConformance(target: ConformanceTarget, options: RunOptions = {}): Promise<RunReport> {
  const checks = selectChecks(options.only, options.checks);
  const state = prepareRun(target, options);
  const results: CheckResult[] = [];
  for (const check of checks) {
    const result = await runCheck(check, state);
    results.push(result);
    options.onResult?.(result);
  }
  const count = (status: CheckResult['status']) => results.filter((result) => result.status === status).length;
  return { seed: state.seed, runs: state.runs, results, summary: { passed: count('passed'), failed: count('failed'), skipped: count('skipped') } };
}
