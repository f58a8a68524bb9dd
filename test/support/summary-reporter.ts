import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/**
 * Prints the plain closing line `N passed, N failed, N skipped` that tools outside vitest read
 * (CI among them), after vitest's own summary. A test file that fails without a failing test (it
 * could not be imported, or a `beforeAll` threw) and an unhandled error each count as one failure,
 * so the line never says 0 failed for a run that failed.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const module of testModules) {
      const failedTests = [...module.children.allTests('failed')].length;
      passed += [...module.children.allTests('passed')].length;
      failed += failedTests === 0 && module.state() === 'failed' ? 1 : failedTests;
      skipped += [...module.children.allTests('skipped')].length;
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
