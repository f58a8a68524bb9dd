/**
 * `agent-services conformance` as a user runs it: the built command (a child process) against a
 * `serve` process with an admin token, and against a mutating proxy in front of it. Argument
 * errors and help answer at once without a server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TEST_TIMEOUT_MS, killAll, launch, runToEnd, waitForLine } from './cli-process.js';
import { ensureBuilt } from './ensure-built.js';
import { payment402As400, startMutatingProxy, type RunningProxy } from '../conformance/mutating-proxy.js';

const proxies: RunningProxy[] = [];

beforeAll(async () => {
  await ensureBuilt();
}, CLI_TEST_TIMEOUT_MS);

afterAll(async () => {
  for (const proxy of proxies) await proxy.close();
  killAll();
});

describe('agent-services conformance', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('prints its help, and refuses a missing --base-url, an unknown area or reporter with a message saying what is wrong', async (t) => {
    const help = await runToEnd(t, ['conformance', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--reporter R\s+spec/);
    expect(help.stdout).toContain('--only AREA');
    const missing = await runToEnd(t, ['conformance']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('--base-url URL is required');
    const area = await runToEnd(t, ['conformance', '--base-url', 'http://127.0.0.1:1', '--only', 'walet']);
    expect(area.stderr).toContain('unknown area "walet"');
    const reporter = await runToEnd(t, ['conformance', '--base-url', 'http://127.0.0.1:1', '--reporter', 'xml']);
    expect(reporter.stderr).toContain('--reporter: expected one of spec, tap, junit, json');
  });

  it('passes against a real server (JUnit XML), and fails with exit 1 behind a proxy that turns 402 into 400 (TAP)', async (t) => {
    const server = launch(t, ['serve', '--port', '0', '--admin-token', 'cf-admin', '--browser', 'simulated']);
    await waitForLine(server, /^listening on .*\n/m, 'agent-services serve');
    const url = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(server.stdout())![1]!;

    const junit = await runToEnd(t, ['conformance', '--base-url', url, '--admin-token', 'cf-admin', '--only', 'service,identity,webhooks', '--runs', '2', '--reporter', 'junit']);
    expect(junit.stderr).toBe('');
    expect(junit.code).toBe(0);
    expect(junit.stdout).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="agent-services conformance" tests="\d+" failures="0"/);
    expect(junit.stdout).toContain('<testsuite name="identity"');

    const unauthorized = await runToEnd(t, ['conformance', '--base-url', url, '--only', 'identity', '--reporter', 'json']);
    expect(unauthorized.code).toBe(1);
    expect(JSON.parse(unauthorized.stdout).summary.failed).toBeGreaterThan(0);

    const proxy = await startMutatingProxy(url, payment402As400);
    proxies.push(proxy);
    const tap = await runToEnd(t, ['conformance', '--base-url', proxy.url, '--admin-token', 'cf-admin', '--only', 'wallet', '--seed', '3', '--runs', '2', '--reporter', 'tap']);
    expect(tap.code).toBe(1);
    expect(tap.stdout).toMatch(/^TAP version 13\n1\.\.\d+\n/);
    expect(tap.stdout).toMatch(/^not ok \d+ - wallet: a send above the balance is 402 insufficient_funds and changes nothing$/m);
    // The server has the fault language, so the fault check runs (it fails nothing the proxy changes).
    expect(tap.stdout).toMatch(/^ok \d+ - wallet: a chain\.submit fault fails the send, returns the amount and keeps the fee$/m);
    expect(tap.stdout).toContain('replay: agent-services conformance --base-url');
    expect(tap.stdout).toContain('--admin-token <token> --only wallet --seed 3 --runs 2');
  });
});
