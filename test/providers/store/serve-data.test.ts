// `serve --data`: a JSON world of an older version is imported once; a database that cannot be
// used stops the start with a message and a non-zero exit, before anything listens. (The generous
// limits are for a loaded machine; no test measures time.)
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime } from '../../../src/index.js';
import { CLI, ensureBuilt, ROOT } from '../../cli/ensure-built.js';
import { exitOf } from '../../support/child-exit.js';

let dir: string;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(path.join(os.tmpdir(), 'serve-data-'));
}, 300_000);

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `serve` with `args`; resolves once it listens (with its URL) or has exited (with its output). */
function start(args: string[]): Promise<{ child: ChildProcess; url: string | null; stdout: string; stderr: string; code: number | null }> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = /^listening on (\S+)$/m.exec(stdout)?.[1];
      if (url) resolve({ child, url, stdout, stderr, code: null });
    });
    child.once('close', (code) => resolve({ child, url: null, stdout, stderr, code }));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  const closed = exitOf(child);
  child.kill('SIGTERM');
  await closed;
}

describe('serve --data', () => {
  it('imports a JSON world once into FILE.db and then points to the database', async () => {
    const source = await createRuntime({ seed: 4 });
    const ann = await source.createAgent({ name: 'ann', bio: 'from json' });
    const json = path.join(dir, 'world.json');
    writeFileSync(json, JSON.stringify(await source.sim.snapshot()));

    const first = await start(['--data', json]);
    expect(first.url).not.toBeNull();
    expect(first.stdout).toContain(`imported the JSON world ${json} into ${path.join(dir, 'world.db')}`);
    const profile = await fetch(`${first.url}/v1/agent`, { headers: { authorization: `Bearer ${ann.api_key}` } });
    expect(await profile.json()).toMatchObject({ agent_id: ann.agent_id, bio: 'from json' });
    await stop(first.child);

    const again = await start(['--data', json]);
    expect(again.url).toBeNull();
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain(`start with --data ${path.join(dir, 'world.db')}`);

    const database = await start(['--data', path.join(dir, 'world.db')]);
    expect(database.url).not.toBeNull();
    expect((await fetch(`${database.url}/v1/agent`, { headers: { authorization: `Bearer ${ann.api_key}` } })).status).toBe(200);
    await stop(database.child);
  }, 300_000);

  it('refuses a database another server holds, before listening', async () => {
    const file = path.join(dir, 'held.db');
    const holder = await start(['--data', file]);
    expect(holder.url).not.toBeNull();
    const second = await start(['--data', file]);
    expect(second.url).toBeNull();
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/held\.db is in use by another process/);
    expect(second.stdout).not.toMatch(/listening/);
    await stop(holder.child);
  }, 300_000);

  it('refuses a file that is neither a database nor a JSON world, leaving it alone', async () => {
    const file = path.join(dir, 'junk.db');
    writeFileSync(file, 'not a database, not json either, just some text that is long enough');
    const result = await start(['--data', file]);
    expect(result.url).toBeNull();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${file} is not a SQLite database`);
    expect(existsSync(`${file}-wal`)).toBe(false);
  }, 300_000);

  it('refuses an --event-retention that is not a duration', async () => {
    const result = await start(['--event-retention', 'forever']);
    expect(result.url).toBeNull();
    expect(result.stderr).toMatch(/--event-retention must be a duration such as 30s/);
  }, 300_000);
});
