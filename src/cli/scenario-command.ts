import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseDuration } from '../core/shared/duration.js';
import { loadScenario } from '../scenario/load-scenario.js';
import { progressDisplay, type ProgressOutput } from '../scenario/progress.js';
import { renderReport } from '../scenario/report-html.js';
import { runScenario, type ScenarioResult } from '../scenario/run-scenario.js';
import { SCENARIO_USAGE } from './usage.js';

/** Arguments of `agent-services scenario run`. */
export interface ScenarioArgs {
  file: string;
  seed?: number;
  agents?: number;
  duration?: string;
  report?: string;
  trace?: string;
}

/** A usage error: printed with the help text, exit code 2. */
export class UsageError extends Error {}

/** Parses `scenario run FILE [options]`. @throws UsageError naming the bad argument */
export function parseScenarioArgs(args: string[]): ScenarioArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: {
        seed: { type: 'string' },
        agents: { type: 'string' },
        duration: { type: 'string' },
        report: { type: 'string' },
        trace: { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [action, file, ...extra] = positionals;
  if (action !== 'run') throw new UsageError(action === undefined ? 'missing the action: scenario run FILE' : `unknown action "${action}" (only "run")`);
  if (file === undefined) throw new UsageError('missing the scenario FILE');
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  const result: ScenarioArgs = { file };
  if (values.seed !== undefined) {
    if (!/^-?\d{1,15}$/.test(values.seed)) throw new UsageError(`--seed must be an integer, got "${values.seed}"`);
    result.seed = Number(values.seed);
  }
  if (values.agents !== undefined) {
    if (!/^[1-9]\d{0,6}$/.test(values.agents)) throw new UsageError(`--agents must be an integer from 1, got "${values.agents}"`);
    result.agents = Number(values.agents);
  }
  if (values.duration !== undefined) {
    try {
      parseDuration(values.duration);
    } catch (error) {
      throw new UsageError(`--duration: ${(error as Error).message}`);
    }
    result.duration = values.duration;
  }
  if (values.report !== undefined) result.report = values.report;
  if (values.trace !== undefined) result.trace = values.trace;
  return result;
}

/** Quotes an argument for a POSIX shell when it needs it. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The command that runs the same scenario with the same seed, agents and duration. */
export function replayCommand(file: string, result: Pick<ScenarioResult, 'seed' | 'agents' | 'duration'>): string {
  return ['agent-services', 'scenario', 'run', file, '--seed', String(result.seed), '--agents', String(result.agents), '--duration', result.duration].map(shellWord).join(' ');
}

function summaryLines(result: ScenarioResult, elapsed: number): string[] {
  const lines = [
    `scenario ${result.scenario}: seed ${result.seed}, ${result.agents} agents, ${result.duration} of service time in steps of ${result.stepSeconds} s (${result.start} → ${result.end})`,
    `steps ${result.stepsRun}/${result.steps}, ${result.agentSteps} agent steps, ${result.calls} calls, ${result.events} events, ${result.policyErrors} policy errors`,
    `wall time ${elapsed.toFixed(1)} s, ${Math.round(result.agentSteps / Math.max(elapsed, 1e-9))} agent-steps/s`,
  ];
  const errors = Object.entries(result.errors);
  if (errors.length > 0) lines.push(`API errors: ${errors.map(([code, count]) => `${code} ${count}`).join(', ')}`);
  for (const failure of result.firstPolicyErrors.slice(0, 3)) lines.push(`policy error (step ${failure.step}, ${failure.agent}): ${failure.message}`);
  if (result.invariants.length > 0) lines.push(`invariants checked after every step: ${result.invariants.join(', ')}`);
  return lines;
}

/**
 * `agent-services scenario ...`: runs a scenario file and prints a summary and the trace's
 * SHA-256; exit code 0, 1 when an invariant broke, 2 on a usage error.
 * @throws Error when the file cannot be loaded or the scenario throws while setting up
 */
export async function scenarioMain(args: string[], print: (line: string) => void, progressOut: ProgressOutput = process.stdout): Promise<number> {
  if (args.length === 0 || args.includes('--help') || args.includes('-h')) {
    print(SCENARIO_USAGE);
    return args.length === 0 ? 2 : 0;
  }
  let parsed: ScenarioArgs;
  try {
    parsed = parseScenarioArgs(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    print(`agent-services scenario: ${error.message}\n\n${SCENARIO_USAGE}`);
    return 2;
  }
  const scenario = await loadScenario(parsed.file);
  const started = performance.now();
  const progress = progressDisplay(progressOut, started);
  const options: Parameters<typeof runScenario>[1] = { onStep: progress.onStep };
  if (parsed.seed !== undefined) options.seed = parsed.seed;
  if (parsed.agents !== undefined) options.agents = parsed.agents;
  if (parsed.duration !== undefined) options.duration = parsed.duration;
  if (parsed.trace !== undefined) options.tracePath = parsed.trace;
  let result: ScenarioResult;
  try {
    result = await runScenario(scenario, options);
  } finally {
    progress.done();
  }
  const elapsed = (performance.now() - started) / 1000;
  const replay = replayCommand(parsed.file, result);
  for (const line of summaryLines(result, elapsed)) print(line);
  if (parsed.trace !== undefined) print(`trace: ${parsed.trace} (${result.traceLines} lines, ${result.traceBytes} bytes)`);
  if (parsed.report !== undefined) {
    writeFileSync(parsed.report, renderReport(result, { command: replay, elapsedSeconds: elapsed }));
    print(`report: ${parsed.report}`);
  }
  print(`trace sha256: ${result.sha256}`);
  if (result.broken) {
    print(`INVARIANT BROKEN: "${result.broken.name}" at step ${result.broken.step} (${result.broken.at}): ${result.broken.message}`);
    print(`seed: ${result.seed}`);
    print(`step: ${result.broken.step}`);
    print(`replay: ${replay}`);
    return 1;
  }
  return 0;
}
