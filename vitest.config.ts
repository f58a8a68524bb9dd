import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // At least two files at once: on 2 cores Vitest ran one at a time (the whole suite took 524 s of
    // wall time; with two, 369 s on the same machine and tree), and much of a file's time is
    // waiting on servers, databases and pollers, not CPU.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    globalSetup: ['./test/support/postgres-global-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    // The stores then find a read through store.view, or a transaction, started inside a
    // running transaction (which would wait for itself) and refuse it (src/providers/store/transaction-turns.ts).
    env: { AGENT_SERVICES_STORE_CHECKS: '1' },
  },
});
