import { prepareRun, runCheck, selectChecks, type RunOptions, type RunState } from './runner.js';
import type { ConformanceTarget } from './target.js';

/** The part of a test runner the suite registers on (vitest, jest, mocha, node:test all fit). */
export interface TestRunner {
  describe(name: string, body: () => void): void;
  /** The test body may receive the runner's context; a `skip(note)` on it reports a skipped check. The third argument is a time limit in ms (vitest, jest). */
  it(name: string, body: (context?: any) => Promise<void>, timeout?: number): void;
  /** When given, `close` of the options runs after the suite. */
  afterAll?(body: () => Promise<void> | void): void;
}

/** What to register. */
export interface RegisterOptions extends Omit<RunOptions, 'onResult'> {
  /** Builds the target once, when the first check runs. */
  target: () => ConformanceTarget | Promise<ConformanceTarget>;
  /** Called after the suite (needs `afterAll` on the runner). */
  close?: () => Promise<void> | void;
  /** Name of the outer `describe` (default `conformance`). */
  title?: string;
  /** Time limit per check in ms, passed as `it`'s third argument (default: the runner's). */
  timeoutMs?: number;
}

/**
 * Registers the suite on a test runner: one `describe` per area, one `it` per check. A failed
 * check throws its message; a skipped one calls the context's `skip(reason)` where the runner
 * offers it (vitest), and otherwise passes after logging the reason.
 * @throws Error for an unknown area in `only`
 */
export function registerConformance(runner: TestRunner, options: RegisterOptions): void {
  const checks = selectChecks(options.only, options.checks);
  let state: Promise<RunState> | undefined;
  const shared = () => (state ??= Promise.resolve(options.target()).then((target) => prepareRun(target, options)));
  runner.describe(options.title ?? 'conformance', () => {
    for (const area of [...new Set(checks.map((check) => check.area))]) {
      runner.describe(area, () => {
        for (const check of checks.filter((item) => item.area === area)) {
          runner.it(
            check.name,
            async (context?: { skip?: (note?: string) => void }) => {
              const result = await runCheck(check, await shared());
              if (result.status === 'failed') throw new Error(result.message);
              if (result.status === 'skipped') {
                if (typeof context?.skip === 'function') context.skip(result.message);
                else console.log(`skipped: ${check.area} ${check.name}: ${result.message}`);
              }
            },
            options.timeoutMs,
          );
        }
      });
    }
    if (options.close && runner.afterAll) runner.afterAll(options.close);
  });
}
