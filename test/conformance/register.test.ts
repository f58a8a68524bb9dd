/**
 * registerConformance on a runner that is not vitest: one describe per area, one it per check,
 * failures thrown with the check's message, skips reported through the context's skip(reason)
 * when there is one and passed (with the reason logged) when there is not.
 */
import { describe, expect, it, vi } from 'vitest';
import { CheckFailure, registerConformance, runConformance, type CheckDefinition, type ConformanceTarget, type TestRunner } from '../../src/conformance/index.js';

const CHECKS: CheckDefinition[] = [
  { area: 'wallet', name: 'passes', run: async () => {} },
  {
    area: 'wallet',
    name: 'fails',
    run: async () => {
      throw new CheckFailure('expected 402, got 400');
    },
  },
  { area: 'email', name: 'needs faults', needs: ['faults'], run: async () => {} },
  { area: 'email', name: 'needs raw', needs: ['raw'], run: async () => {} },
];

/** A target with no raw HTTP and no fault language: enough for checks that touch nothing. */
const target = {
  agent: () => {
    throw new Error('unused');
  },
  control: { faults: async () => null },
} as unknown as ConformanceTarget;

/** A runner that records what is registered and keeps the test bodies. */
function recordingRunner() {
  const names: string[] = [];
  const bodies = new Map<string, (context?: unknown) => Promise<void>>();
  const path: string[] = [];
  const runner: TestRunner = {
    describe: (name, body) => {
      path.push(name);
      names.push(`describe ${path.join(' > ')}`);
      body();
      path.pop();
    },
    it: (name, body) => {
      names.push(`it ${[...path, name].join(' > ')}`);
      bodies.set(name, body);
    },
  };
  return { runner, names, bodies };
}

describe('registerConformance', () => {
  it('registers one describe per area and one it per check, in suite order', () => {
    const { runner, names } = recordingRunner();
    registerConformance(runner, { target: () => target, checks: CHECKS, title: 'mine' });
    expect(names).toEqual(['describe mine', 'describe mine > wallet', 'it mine > wallet > passes', 'it mine > wallet > fails', 'describe mine > email', 'it mine > email > needs faults', 'it mine > email > needs raw']);
  });

  it("throws a failed check's message, and reports skips through the context or the log", async () => {
    const { runner, bodies } = recordingRunner();
    registerConformance(runner, { target: () => target, checks: CHECKS });
    await expect(bodies.get('passes')!()).resolves.toBeUndefined();
    await expect(bodies.get('fails')!()).rejects.toThrow('expected 402, got 400');
    const skip = vi.fn();
    await bodies.get('needs faults')!({ skip });
    expect(skip).toHaveBeenCalledWith('needs the fault language: the target has no /_sim/faults');
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    await bodies.get('needs raw')!();
    expect(log).toHaveBeenCalledWith(expect.stringContaining('skipped: email needs raw: needs raw HTTP access'));
    log.mockRestore();
  });

  it('refuses an unknown area in only', () => {
    expect(() => registerConformance(recordingRunner().runner, { target: () => target, only: ['walet' as 'wallet'] })).toThrow('unknown area "walet"');
  });

  it('runConformance counts passed, failed and skipped', async () => {
    const report = await runConformance(target, { checks: CHECKS, seed: 5 });
    expect(report.summary).toEqual({ passed: 1, failed: 1, skipped: 2 });
    expect(report.seed).toBe(5);
  });
});
