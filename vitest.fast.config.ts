import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `npm run test:fast`: the core, HTTP and runtime tests, without what needs a real browser
 * (`*.browser.test.ts`, Chromium), a Python interpreter (Pyodide) or a CLI process (the built
 * `agent-services` killed and restarted in a loop). The whole suite stays `npm test`.
 *
 * Files run on worker threads that keep their modules between files (`isolate: false`): importing
 * the runtime again for each of some sixty files was most of the loop's CPU (74 s of CPU with
 * isolated forks, 44 s without). `npm test` keeps one fresh process per file, so a test that leans
 * on state another file left behind still fails there.
 * (Not mergeConfig: it would append these globs to the whole suite's instead of replacing them.)
 */
export default defineConfig({
  test: {
    ...base.test,
    include: ['test/core/**/*.test.ts', 'test/http/**/*.test.ts', 'test/runtime/**/*.test.ts'],
    exclude: [...configDefaults.exclude, '**/*.browser.test.ts', 'test/core/email/outbound-crash.test.ts'],
    pool: 'threads',
    isolate: false,
  },
});
