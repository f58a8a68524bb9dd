import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { CLI_TEST_TIMEOUT_MS, killAll, launch, runToEnd, waitForLine, type CliProcess } from './cli-process.js';
import { CLI, ensureBuilt } from './ensure-built.js';

interface Server {
  child: CliProcess['child'];
  url: string;
  /** Every stdout line so far. */
  lines: string[];
  stderr: () => string;
  /** Resolves with the exit code (or signal) once the process and its pipes have closed. */
  closed: Promise<number | NodeJS.Signals | null>;
}

let dir: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(path.join(os.tmpdir(), 'cli-serve-'));
}, CLI_TEST_TIMEOUT_MS);

afterAll(() => {
  killAll();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * Starts `serve` and waits until a whole line matching `waitFor` (by default `listening on`) is
 * printed. Each test starts its own servers on free ports with its own data files, so the tests
 * run concurrently; a process is killed when the test that started it ends, pass or fail.
 */
async function startServer(t: TestContext, args: string[], waitFor: RegExp = /^listening on .*\n/m): Promise<Server> {
  const run = launch(t, ['serve', ...args]);
  await waitForLine(run, waitFor, `agent-services serve ${args.join(' ')}`);
  const lines = run.stdout().split('\n');
  const url = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(lines[0] ?? '')?.[1];
  if (!url) throw new Error(`first line is not "listening on <url>": ${lines[0]}`);
  return { child: run.child, url, lines, stderr: run.stderr, closed: run.closed };
}

async function createAgent(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${url}/_sim/agents`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

async function profileWith(url: string, apiKey: string) {
  return fetch(`${url}/v1/agent`, { headers: { authorization: `Bearer ${apiKey}` } });
}

async function stop(server: Server, signal: NodeJS.Signals = 'SIGTERM') {
  server.child.kill(signal);
  return server.closed;
}

describe.concurrent('agent-services serve', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('prints the address it listens on as its first line, and answers the OpenAPI document and agent creation there', async (t) => {
    const server = await startServer(t, ['--port', '0', '--seed', '1']);
    expect(server.lines[0]).toMatch(/^listening on http:\/\/127\.0\.0\.1:[1-9]\d*$/);
    const openapi = await fetch(`${server.url}/openapi.json`);
    expect(openapi.status).toBe(200);
    expect(await openapi.json()).toHaveProperty('paths');

    const created = await createAgent(server.url, { name: 'alice' });
    expect(created.status).toBe(201);
    const agent = (await created.json()) as { agent_id: string; handle: string; api_key: string };
    expect(agent.handle).toBe('alice.agents.test');
    const profile = await profileWith(server.url, agent.api_key);
    expect(profile.status).toBe(200);
    expect(await profile.json()).toMatchObject({ agent_id: agent.agent_id, handle: 'alice.agents.test' });
  });

  it('gives the same first agent the same id and key in two runs with the same seed', async (t) => {
    const results = [];
    for (let run = 0; run < 2; run++) {
      const server = await startServer(t, ['--port', '0', '--seed', '1']);
      results.push(await (await createAgent(server.url, { name: 'alice' })).json());
      await stop(server);
    }
    expect(results[0]).toMatchObject({ agent_id: expect.stringMatching(/^agt_/), api_key: expect.stringMatching(/^sk_/) });
    expect(results[1]).toEqual(results[0]);

    const other = await startServer(t, ['--port', '0', '--seed', '2']);
    const otherAgent = (await (await createAgent(other.url, { name: 'alice' })).json()) as { agent_id: string };
    expect(otherAgent.agent_id).not.toBe((results[0] as { agent_id: string }).agent_id);
  });

  it('exits with code 0 on SIGTERM', async (t) => {
    const server = await startServer(t, ['--port', '0']);
    expect(await stop(server)).toBe(0);
  });

  describe('--data FILE', () => {
    it('keeps agents and their keys across a SIGTERM and restart', async (t) => {
      const file = path.join(dir, 'sigterm.db');
      const first = await startServer(t, ['--port', '0', '--seed', '1', '--data', file]);
      const alice = (await (await createAgent(first.url, { name: 'alice', bio: 'persistent' })).json()) as { agent_id: string; api_key: string };
      expect(await stop(first)).toBe(0);

      const second = await startServer(t, ['--port', '0', '--seed', '1', '--data', file]);
      const profile = await profileWith(second.url, alice.api_key);
      expect(profile.status).toBe(200);
      expect(await profile.json()).toMatchObject({ agent_id: alice.agent_id, handle: 'alice.agents.test', bio: 'persistent' });
      const publicProfile = await fetch(`${second.url}/v1/agent/alice`);
      expect(publicProfile.status).toBe(200);

      const again = await createAgent(second.url, { name: 'alice' });
      expect(again.status).toBe(409);
      const bob = await createAgent(second.url, { name: 'bob' });
      expect(bob.status).toBe(201);
      expect(((await bob.json()) as { agent_id: string }).agent_id).not.toBe(alice.agent_id);
    });

    it('keeps an agent whose creation was answered even when the server is killed with SIGKILL', async (t) => {
      const file = path.join(dir, 'sigkill.db');
      const first = await startServer(t, ['--port', '0', '--seed', '1', '--data', file]);
      const alice = (await (await createAgent(first.url, { name: 'alice' })).json()) as { agent_id: string; api_key: string };
      expect(await stop(first, 'SIGKILL')).toBe('SIGKILL');

      const second = await startServer(t, ['--port', '0', '--seed', '1', '--data', file]);
      const profile = await profileWith(second.url, alice.api_key);
      expect(profile.status).toBe(200);
      expect(((await profile.json()) as { agent_id: string }).agent_id).toBe(alice.agent_id);
    });

    it('refuses to start on a file that is not JSON, naming the file on stderr', async (t) => {
      const file = path.join(dir, 'broken.json');
      writeFileSync(file, 'not json');
      const result = await runToEnd(t, ['serve', '--port', '0', '--data', file]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(file);
      expect(result.stdout).not.toMatch(/listening on/);
      expect(readFileSync(file, 'utf8')).toBe('not json');
    });
  });

  describe('--admin-token T', () => {
    it('answers /_sim with 401 without the token and serves it with the token', async (t) => {
      const server = await startServer(t, ['--port', '0', '--admin-token', 'sekrit']);
      const without = await createAgent(server.url, { name: 'alice' });
      expect(without.status).toBe(401);
      expect(await without.json()).toMatchObject({ error: { code: 'unauthorized' } });
      const wrong = await createAgent(server.url, { name: 'alice' }, { authorization: 'Bearer sekriT' });
      expect(wrong.status).toBe(401);
      const clock = await fetch(`${server.url}/_sim/clock`);
      expect(clock.status).toBe(401);

      const allowed = await createAgent(server.url, { name: 'alice' }, { authorization: 'Bearer sekrit' });
      expect(allowed.status).toBe(201);
    });
  });

  describe('dashboard', () => {
    it('prints the dashboard URL after the listening line, and the page answers there', async (t) => {
      const server = await startServer(t, ['--port', '0'], /^dashboard: .*\n/m);
      expect(server.lines[1]).toBe(`dashboard:  ${server.url}/_dashboard`);
      const page = await fetch(`${server.url}/_dashboard`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<h1>Agents');
    });

    it('with --admin-token tells how to log in without printing the token, and ?token= logs in', async (t) => {
      const server = await startServer(t, ['--port', '0', '--admin-token', 'sekrit'], /^dashboard: .*\n/m);
      expect(server.lines[1]).toBe(`dashboard:  ${server.url}/_dashboard?token=<admin token> (sets a cookie; or send Authorization: Bearer <admin token>)`);
      expect((await fetch(`${server.url}/_dashboard`)).status).toBe(401);
      const login = await fetch(`${server.url}/_dashboard?token=sekrit`, { redirect: 'manual' });
      expect(login.status).toBe(303);
      expect(login.headers.get('set-cookie')).toMatch(/HttpOnly/);
    });
  });

  describe('--demo', () => {
    it('prints the demo handle, an API key and a curl line whose key works', async (t) => {
      const server = await startServer(t, ['--port', '0', '--seed', '1', '--demo'], /^try: .*\n/m);
      const output = server.lines.join('\n');
      expect(output).toMatch(/^demo agent: demo\.agents\.test$/m);
      const key = /^API key:\s+(sk_\S+)$/m.exec(output)?.[1];
      expect(key).toBeDefined();
      const curl = /^try:\s+(curl .*)$/m.exec(output)?.[1] ?? '';
      const header = /-H "Authorization: Bearer (\S+)"/.exec(curl)?.[1];
      const target = /(http:\/\/\S+)$/.exec(curl)?.[1];
      expect(header).toBe(key);
      expect(target).toBe(`${server.url}/v1/agent`);

      const profile = await fetch(target!, { headers: { authorization: `Bearer ${header}` } });
      expect(profile.status).toBe(200);
      expect(await profile.json()).toMatchObject({ handle: 'demo.agents.test', display_name: 'Demo Agent' });
    });

    it('does not create a second demo agent in a data file that already has one', async (t) => {
      const file = path.join(dir, 'demo.db');
      const first = await startServer(t, ['--port', '0', '--demo', '--data', file], /^try: .*\n/m);
      const key = /^API key:\s+(sk_\S+)$/m.exec(first.lines.join('\n'))?.[1];
      expect(await stop(first)).toBe(0);

      const second = await startServer(t, ['--port', '0', '--demo', '--data', file], /^demo agent: .*\n/m);
      expect(second.lines.join('\n')).toMatch(/already created/);
      expect(second.lines.join('\n')).not.toMatch(/API key:/);
      expect((await profileWith(second.url, key!)).status).toBe(200);
    });
  });

  describe('bad arguments', () => {
    it('exits non-zero with a message on stderr for --port abc', async (t) => {
      const result = await runToEnd(t, ['serve', '--port', 'abc']);
      expect(result.code).not.toBe(0);
      expect(typeof result.code).toBe('number');
      expect(result.stderr).toMatch(/--port/);
      expect(result.stderr).toMatch(/abc/);
      expect(result.stdout).not.toMatch(/listening on/);
    });

    it('exits non-zero with a message on stderr for an unknown option', async (t) => {
      const result = await runToEnd(t, ['serve', '--bogus']);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/--bogus/);
    });

    it('exits 2 and prints the usage for an unknown command', async (t) => {
      const result = await runToEnd(t, ['frobnicate']);
      expect(result.code).toBe(2);
      expect(result.stdout).toMatch(/Usage: agent-services/);
    });
  });

  describe('help', () => {
    it('agent-services --help prints the usage and exits 0', async (t) => {
      const result = await runToEnd(t, ['--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/Usage: agent-services <command>/);
      expect(result.stdout).toMatch(/serve/);
    });

    it('agent-services serve --help lists the options and exits 0', async (t) => {
      const result = await runToEnd(t, ['serve', '--help']);
      expect(result.code).toBe(0);
      for (const option of ['--port', '--seed', '--data', '--admin-token', '--demo']) expect(result.stdout).toContain(option);
    });

    it('is an executable node script, as the package bin needs', () => {
      expect(readFileSync(CLI, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    });
  });
});
