import { parseArgs } from 'node:util';
import { httpTarget } from '../conformance/target.js';
import { DEFAULT_RUNS, randomSeed, runConformance, selectChecks } from '../conformance/runner.js';
import { jsonReport } from '../conformance/reporters/json.js';
import { junitReport } from '../conformance/reporters/junit.js';
import { specHeading, specLine, specSummary } from '../conformance/reporters/spec.js';
import { tapReport } from '../conformance/reporters/tap.js';
import type { Area } from '../conformance/types.js';

export { CONFORMANCE_USAGE } from './usage.js';

const REPORTERS = ['spec', 'tap', 'junit', 'json'] as const;
type Reporter = (typeof REPORTERS)[number];

/** Parsed `conformance` arguments. */
export interface ConformanceArgs {
  baseUrl: string;
  adminToken?: string;
  only?: Area[];
  seed: number;
  runs: number;
  reporter: Reporter;
}

/** A non-negative integer flag. @throws Error naming the flag */
function integerFlag(name: string, text: string, min: number): number {
  if (!/^\d+$/.test(text) || Number(text) < min || !Number.isSafeInteger(Number(text))) throw new Error(`--${name}: expected an integer of at least ${min}, got "${text}"`);
  return Number(text);
}

/**
 * Parses `conformance` arguments; the reporter defaults to spec on a terminal and tap otherwise.
 * @throws Error with a usage message
 */
export function parseConformanceArgs(args: string[], isTerminal: boolean): ConformanceArgs {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      'base-url': { type: 'string' },
      'admin-token': { type: 'string' },
      only: { type: 'string' },
      seed: { type: 'string' },
      runs: { type: 'string' },
      reporter: { type: 'string' },
    },
  });
  const baseUrl = values['base-url'];
  if (!baseUrl) throw new Error('--base-url URL is required (the server to check, e.g. http://127.0.0.1:8787)');
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new Error(`--base-url: expected an http:// or https:// URL, got "${baseUrl}"`);
  }
  const reporter = (values.reporter ?? (isTerminal ? 'spec' : 'tap')) as Reporter;
  if (!REPORTERS.includes(reporter)) throw new Error(`--reporter: expected one of ${REPORTERS.join(', ')}, got "${values.reporter}"`);
  const only =
    values.only === undefined
      ? undefined
      : (values.only
          .split(',')
          .map((area) => area.trim())
          .filter(Boolean) as Area[]);
  if (only) selectChecks(only);
  return {
    baseUrl: baseUrl.replace(/\/$/, ''),
    ...(values['admin-token'] === undefined ? {} : { adminToken: values['admin-token'] }),
    ...(only ? { only } : {}),
    seed: values.seed === undefined ? randomSeed() : integerFlag('seed', values.seed, 0),
    runs: values.runs === undefined ? DEFAULT_RUNS : integerFlag('runs', values.runs, 1),
    reporter,
  };
}

/** Where the command writes. */
export interface ConformanceOutput {
  write(text: string): void;
  /** Whether stdout is a terminal (spec by default, in colour). */
  isTerminal: boolean;
  /** A fetch implementation (default: the global fetch). */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * `agent-services conformance`: runs the suite against a server and prints the report; answers
 * the exit code (0 all passed or skipped, 1 a check failed or the server cannot be reached).
 * @throws Error with a usage message for bad arguments
 */
export async function conformanceCommand(args: string[], output: ConformanceOutput): Promise<number> {
  const options = parseConformanceArgs(args, output.isTerminal);
  const send = output.fetch ?? ((request: Request) => fetch(request));
  try {
    await (await send(new Request(`${options.baseUrl}/v1/agent`))).arrayBuffer();
  } catch (error) {
    output.write(`agent-services conformance: cannot reach ${options.baseUrl}: ${(error as Error).message}\n`);
    return 1;
  }
  const target = httpTarget({ baseUrl: options.baseUrl, fetch: send, ...(options.adminToken === undefined ? {} : { adminToken: options.adminToken }) });
  const token = options.adminToken === undefined ? '' : ' --admin-token <token>';
  const replay = (area: Area, seed: number) => `agent-services conformance --base-url ${options.baseUrl}${token} --only ${area} --seed ${seed} --runs ${options.runs}`;
  const spec = options.reporter === 'spec';
  const style = { color: output.isTerminal };
  let area: string | undefined;
  if (spec) output.write(`agent-services conformance against ${options.baseUrl} (seed ${options.seed}, ${options.runs} runs per property)\n`);
  const report = await runConformance(target, {
    seed: options.seed,
    runs: options.runs,
    replay,
    ...(options.only ? { only: options.only } : {}),
    onResult: (result) => {
      if (!spec) return;
      if (result.area !== area) output.write(`${specHeading((area = result.area))}\n`);
      output.write(`${specLine(result, style)}\n`);
    },
  });
  if (spec) output.write(specSummary(report, style));
  else if (options.reporter === 'tap') output.write(tapReport(report));
  else if (options.reporter === 'junit') output.write(junitReport(report));
  else output.write(jsonReport(report));
  return report.summary.failed > 0 ? 1 : 0;
}
