import { mkdtempSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseScenarioArgs, replayCommand } from '../../src/cli/scenario-command.js';
import { CLI_TEST_TIMEOUT_MS, runToEnd } from '../cli/cli-process.js';
import { ensureBuilt } from '../cli/ensure-built.js';

const MARKET = 'examples/scenarios/marketplace.ts';

function shaOf(stdout: string): string {
  const match = /^trace sha256: ([0-9a-f]{64})$/m.exec(stdout);
  if (!match) throw new Error(`no trace sha256 line in:\n${stdout}`);
  return match[1]!;
}

describe('scenario arguments', () => {
  it('reads every flag', () => {
    expect(parseScenarioArgs(['run', 'x.ts', '--seed', '7', '--agents', '1000', '--duration', '24h', '--report', 'r.html', '--trace', 't.jsonl'])).toEqual({
      file: 'x.ts',
      seed: 7,
      agents: 1000,
      duration: '24h',
      report: 'r.html',
      trace: 't.jsonl',
    });
    expect(parseScenarioArgs(['run', 'x.mjs'])).toEqual({ file: 'x.mjs' });
  });

  it.each([
    [['run'], /missing the scenario FILE/],
    [['walk', 'x.ts'], /unknown action "walk"/],
    [['run', 'x.ts', '--agents', '0'], /--agents must be an integer from 1/],
    [['run', 'x.ts', '--seed', 'abc'], /--seed must be an integer/],
    [['run', 'x.ts', '--duration', 'forever'], /--duration/],
    [['run', 'x.ts', '--speed', '2'], /speed/],
    [['run', 'x.ts', 'y.ts'], /unexpected argument "y.ts"/],
  ])('refuses %j', (args, message) => {
    expect(() => parseScenarioArgs(args)).toThrow(message);
  });

  it('writes a replay command a shell reads back as the same words', () => {
    expect(replayCommand("my scenarios/it's.ts", { seed: 3, agents: 10, duration: '2h' })).toBe("agent-services scenario run 'my scenarios/it'\\''s.ts' --seed 3 --agents 10 --duration 2h");
  });
});

describe('agent-services scenario run', () => {
  beforeAll(ensureBuilt, CLI_TEST_TIMEOUT_MS);

  it(
    'prints its help without running anything',
    async (t) => {
      const run = await runToEnd(t, ['scenario', '--help']);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/Usage: agent-services scenario run FILE/);
      for (const flag of ['--seed', '--agents', '--duration', '--report', '--trace']) expect(run.stdout).toContain(flag);
      const top = await runToEnd(t, ['--help']);
      expect(top.stdout).toMatch(/scenario +run a scenario file/);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'runs a TypeScript scenario: the same seed prints the same SHA-256 and writes that trace; another seed another',
    async (t) => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'scenario-cli-'));
      const trace = path.join(dir, 'trace.jsonl');
      const report = path.join(dir, 'report.html');
      const args = ['scenario', 'run', MARKET, '--agents', '6', '--duration', '2h'];
      const first = await runToEnd(t, [...args, '--seed', '4', '--trace', trace, '--report', report]);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toMatch(/^scenario marketplace: seed 4, 6 agents, 2h of service time/m);
      expect(first.stdout).toMatch(/^steps 12\/12, 72 agent steps/m);
      // Not a terminal: progress comes as plain lines, the last at 100%.
      expect(first.stdout).toMatch(/^step 12\/12 \(100%\) at 2026-01-01T02:00:00.000Z/m);
      expect(shaOf(first.stdout)).toBe(createHash('sha256').update(readFileSync(trace)).digest('hex'));
      expect(readFileSync(report, 'utf8')).toMatch(/^<!doctype html>/);
      const second = await runToEnd(t, [...args, '--seed', '4']);
      expect(shaOf(second.stdout)).toBe(shaOf(first.stdout));
      const other = await runToEnd(t, [...args, '--seed', '5']);
      expect(shaOf(other.stdout)).not.toBe(shaOf(first.stdout));
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'exits 1 on a broken invariant and prints the seed, the step and the command that replays it',
    async (t) => {
      const file = 'test/scenario/fixtures/broken.mjs';
      const run = await runToEnd(t, ['scenario', 'run', file, '--seed', '9']);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain('INVARIANT BROKEN: "fewer than two steps" at step 2 (2026-01-01T00:20:00.000Z): step 2 came');
      expect(run.stdout).toMatch(/^seed: 9$/m);
      expect(run.stdout).toMatch(/^step: 2$/m);
      expect(run.stdout).toMatch(/^replay: agent-services scenario run test\/scenario\/fixtures\/broken\.mjs --seed 9 --agents 2 --duration 1h$/m);
      const replay = await runToEnd(t, ['scenario', 'run', file, '--seed', '9', '--agents', '2', '--duration', '1h']);
      expect(replay.code).toBe(1);
      expect(shaOf(replay.stdout)).toBe(shaOf(run.stdout));
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'exits 2 on a bad flag and 1 on a missing file, saying why',
    async (t) => {
      const bad = await runToEnd(t, ['scenario', 'run', MARKET, '--agents', 'many']);
      expect(bad.code).toBe(2);
      expect(bad.stdout).toMatch(/--agents must be an integer from 1, got "many"/);
      const missing = await runToEnd(t, ['scenario', 'run', 'no/such/file.ts']);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/no such scenario file: no\/such\/file\.ts/);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
