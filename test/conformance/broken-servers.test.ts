/**
 * The conformance command catches real bugs: in front of a real server, mutating proxies break
 * one rule each (a 402 answered as 400, a record repeated across pages, a replay without
 * Idempotent-Replayed, one agent reading another's message). Each run must exit 1 and name the
 * check that broke; the same command against the real server itself passes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformanceCommand } from '../../src/cli/conformance-command.js';
import { createRuntime, serve, type RunningServer, type Runtime } from '../../src/index.js';
import { CONFORMANCE_RUNTIME } from './targets.js';
import { dropReplayedHeader, faultsOverWalletFailures, leakMessages, payment402As400, repeatAcrossPages, startMutatingProxy, type Mutator, type RunningProxy } from './mutating-proxy.js';

interface JsonReport {
  summary: { passed: number; failed: number; skipped: number };
  checks: Array<{ area: string; name: string; status: 'passed' | 'failed' | 'skipped'; message?: string; seed?: number }>;
}

let runtime: Runtime;
let server: RunningServer;
const proxies: RunningProxy[] = [];

beforeAll(async () => {
  runtime = await createRuntime(CONFORMANCE_RUNTIME);
  server = await serve(runtime, { port: 0 });
});

afterAll(async () => {
  for (const proxy of proxies) await proxy.close();
  await server?.close();
  await runtime?.close();
});

/** Runs `agent-services conformance` (in this process) with JSON output; answers the exit code and the report. */
async function conformance(baseUrl: string, only: string): Promise<{ code: number; report: JsonReport }> {
  let printed = '';
  const code = await conformanceCommand(['--base-url', baseUrl, '--only', only, '--seed', '7', '--runs', '3', '--reporter', 'json'], {
    write: (text) => (printed += text),
    isTerminal: false,
  });
  return { code, report: JSON.parse(printed) as JsonReport };
}

async function behind(mutate: Mutator): Promise<string> {
  const proxy = await startMutatingProxy(server.url, mutate);
  proxies.push(proxy);
  return proxy.url;
}

const failedNames = (report: JsonReport) => report.checks.filter((check) => check.status === 'failed').map((check) => check.name);

describe('agent-services conformance against broken servers', () => {
  it('passes against the real server, with the fault checks skipped only when /_sim/faults is missing', async () => {
    const { code, report } = await conformance(server.url, 'service,wallet,email');
    expect(failedNames(report)).toEqual([]);
    expect(code).toBe(0);
    expect(report.summary.passed).toBeGreaterThan(15);
    for (const check of report.checks.filter((item) => item.status === 'skipped')) expect(check.message).toMatch(/\/_sim\/faults/);
  });

  it('runs the fault checks instead of skipping them when the target has /_sim/faults', async () => {
    const { code, report } = await conformance(await behind(faultsOverWalletFailures), 'wallet');
    expect(failedNames(report)).toEqual([]);
    expect(code).toBe(0);
    expect(report.checks.find((check) => check.name.startsWith('a chain.submit fault'))?.status).toBe('passed');
  });

  it('fails when a 402 is answered as a 400, naming the broken checks, with the seed, shrunk calls and replay command of the property', async () => {
    const { code, report } = await conformance(await behind(payment402As400), 'wallet');
    expect(code).toBe(1);
    expect(failedNames(report)).toEqual(expect.arrayContaining(['a send above the balance is 402 insufficient_funds and changes nothing', 'money is conserved and no balance goes negative over random call sequences']));
    const failure = report.checks.find((check) => check.name === 'a send above the balance is 402 insufficient_funds and changes nothing')!;
    expect(failure.message).toMatch(/answered 400 with code insufficient_funds/);
    const property = report.checks.find((check) => check.name === 'money is conserved and no balance goes negative over random call sequences')!;
    expect(property.seed).toBe(7);
    expect(property.message).toMatch(/seed: 7, path: \S+/);
    expect(property.message).toMatch(/shrunk calls: .*wallet\.send\(/);
    expect(property.message).toMatch(/replay: agent-services conformance --base-url http:\/\/127\.0\.0\.1:\d+ --only wallet --seed 7 --runs 3/);
  });

  it('fails when a record is repeated across pages, naming the pagination checks', async () => {
    const { code, report } = await conformance(await behind(repeatAcrossPages()), 'wallet,email');
    expect(code).toBe(1);
    expect(failedNames(report)).toEqual(expect.arrayContaining(['history pages see every record once while new ones arrive', 'inbox pages see every message once while new mail arrives']));
    expect(report.checks.find((check) => check.name === 'history pages see every record once while new ones arrive')!.message).toMatch(/appeared 2 times across pages/);
  });

  it('fails when Idempotent-Replayed is dropped, naming the replay header check', async () => {
    const { code, report } = await conformance(await behind(dropReplayedHeader), 'service');
    expect(code).toBe(1);
    expect(failedNames(report)).toEqual(['a replayed answer carries Idempotent-Replayed: true and the first status']);
  });

  it("fails when one agent can read another's message, naming the isolation check", async () => {
    const { code, report } = await conformance(await behind(leakMessages()), 'email');
    expect(code).toBe(1);
    expect(failedNames(report)).toEqual(["another agent's messages and attachments are 404 not_found"]);
  });
});
