import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['./test/support/postgres-global-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    // The stores then find a read through store.view, or a transaction, started inside a
    // running transaction (which would wait for itself) and refuse it (src/providers/store/transaction-turns.ts).
    env: { AGENT_SERVICES_STORE_CHECKS: '1' },
  },
});
