import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { CLI_TEST_TIMEOUT_MS, killAll, launch, runToEnd, waitForLine } from './cli-process.js';
import { ensureBuilt } from './ensure-built.js';

let dir: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(path.join(os.tmpdir(), 'cli-operations-'));
}, CLI_TEST_TIMEOUT_MS);

afterAll(() => {
  killAll();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function start(t: TestContext, args: string[], env?: Record<string, string>) {
  const run = launch(t, ['serve', ...(args.includes('--config') ? [] : ['--port', '0']), ...args], env);
  await waitForLine(run, /^listening on .*\n/m, `agent-services serve ${args.join(' ')}`);
  const url = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(run.stdout())![1]!;
  return { ...run, url };
}

/** The JSON lines of a process's stdout (the request log), skipping the plain start-up lines. */
function jsonLines(stdout: string): Array<Record<string, unknown>> {
  return stdout.split('\n').flatMap((line) => (line.startsWith('{') ? [JSON.parse(line) as Record<string, unknown>] : []));
}

describe.concurrent('agent-services serve as a live service', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('on SIGTERM during a 3-second run answers it, exits 0, and what it answered survives a restart', async (t) => {
    const data = path.join(dir, 'sigterm-run.db');
    const first = await start(t, ['--seed', '1', '--data', data]);
    const alice = (await (await fetch(`${first.url}/_sim/agents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) })).json()) as {
      api_key: string;
    };
    const auth = { authorization: `Bearer ${alice.api_key}`, 'content-type': 'application/json' };
    const written = await fetch(`${first.url}/v1/compute/fs`, { method: 'PUT', headers: auth, body: JSON.stringify({ path: '/kept.txt', content: Buffer.from('before the stop').toString('base64') }) });
    expect(written.status).toBe(200);

    const running = fetch(`${first.url}/v1/compute/run`, {
      method: 'POST',
      headers: { ...auth, 'x-request-id': 'the-long-run' },
      body: JSON.stringify({ runtime: 'bash', code: 'sleep 3; echo "finished" > /after.txt; echo done' }),
    });
    // The run is under way once its request reached the server; the signal comes while it sleeps.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    first.child.kill('SIGTERM');
    const answer = await running;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ stdout: 'done\n', exit_code: 0 });
    expect(await first.closed).toBe(0);
    const lines = jsonLines(first.stdout());
    expect(lines.find((line) => line.req_id === 'the-long-run')).toMatchObject({ route: '/v1/compute/run', status: 200 });
    expect(first.stdout()).not.toContain(alice.api_key);

    const second = await start(t, ['--seed', '1', '--data', data]);
    for (const [file, content] of [
      ['/kept.txt', 'before the stop'],
      ['/after.txt', 'finished\n'],
    ] as const) {
      const read = await fetch(`${second.url}/v1/compute/fs/content?path=${encodeURIComponent(file)}`, { headers: auth });
      expect(read.status).toBe(200);
      expect(await read.json()).toMatchObject({ content: Buffer.from(content).toString('base64') });
    }
    // A burst answered just before the signal: its request lines are still waiting to be written
    // in groups when the stop begins, and the stop writes every one before the process exits.
    const burst = Array.from({ length: 300 }, (_, i) => `burst-${i}`);
    for (const answer of await Promise.all(burst.map((id) => fetch(`${second.url}/healthz`, { headers: { 'x-request-id': id } })))) expect(answer.status).toBe(200);
    second.child.kill('SIGINT');
    expect(await second.closed).toBe(0);
    const logged = new Set(jsonLines(second.stdout()).map((line) => line.req_id));
    expect(burst.filter((id) => !logged.has(id))).toEqual([]);
  });

  it('serves what a config file sets, an AGENT_SERVICES_ variable overriding it, and never prints the token', async (t) => {
    const config = path.join(dir, 'live.json');
    writeFileSync(config, JSON.stringify({ port: 0, seed: 3, service_domain: 'file.example', admin_token: 'file-token-123', live: true }));
    const server = await start(t, ['--config', config], { AGENT_SERVICES_SERVICE_DOMAIN: 'env.example' });
    const admin = { authorization: 'Bearer file-token-123', 'content-type': 'application/json', 'x-request-id': 'made-by-test' };
    const created = await fetch(`${server.url}/admin/v1/agents`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'alice' }) });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ handle: 'alice.env.example' });
    expect((await fetch(`${server.url}/_sim/clock`, { headers: admin })).status).toBe(404);
    expect((await fetch(`${server.url}/metrics`, { headers: admin })).status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.closed).toBe(0);
    expect(jsonLines(server.stdout()).find((line) => line.req_id === 'made-by-test')).toMatchObject({ route: '/admin/v1/agents', status: 201 });
    expect(server.stdout() + server.stderr()).not.toContain('file-token-123');

    const checked = await runToEnd(t, ['config', 'check', '--config', config]);
    expect(checked.code).toBe(0);
    expect(JSON.parse(checked.stdout)).toMatchObject({ port: 0, seed: 3, admin_token: '********' });
    expect(checked.stdout).not.toContain('file-token-123');
  });

  it('refuses a --log-level or --shutdown-timeout it does not know, naming the flag', async (t) => {
    const level = await runToEnd(t, ['serve', '--port', '0', '--log-level', 'loud']);
    expect(level.code).toBe(1);
    expect(level.stderr).toMatch(/--log-level must be fatal, error, warn, info, debug, trace or silent, got "loud"/);
    const timeout = await runToEnd(t, ['serve', '--port', '0', '--shutdown-timeout', 'soon']);
    expect(timeout.code).toBe(1);
    expect(timeout.stderr).toMatch(/--shutdown-timeout must be a duration such as 30s/);
  });
});
