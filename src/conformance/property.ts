import fc from 'fast-check';
import { CheckFailure } from './assert.js';
import type { CheckContext } from './types.js';

/**
 * Runs a fast-check property with the run's seed and number of runs. On failure the message holds
 * the seed, fast-check's path, the shrunk counterexample (`label` says what it is: for
 * model-based properties the shrunk sequence of calls), the error, and the command line that
 * replays it.
 * @throws CheckFailure describing the shrunk failure
 */
export async function checkProperty<Ts>(context: CheckContext, property: fc.IAsyncProperty<Ts> | fc.IProperty<Ts>, label: 'shrunk calls' | 'shrunk input' = 'shrunk input'): Promise<void> {
  const details = await fc.check(property, { seed: context.seed, numRuns: context.runs });
  if (!details.failed) return;
  const counterexample = details.counterexample ? (details.counterexample as unknown[]).map((value) => fc.stringify(value).replace(/\s*\/\*replayPath="[^"]*"\*\//g, '')).join(', ') : '(none)';
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new CheckFailure(
    [
      `property failed after ${details.numRuns} run(s) and ${details.numShrinks} shrink(s): ${cause}`,
      `seed: ${details.seed}, path: ${details.counterexamplePath ?? ''}`,
      `${label}: ${counterexample}`,
      `replay: ${context.replay}`,
    ].join('\n'),
  );
}
