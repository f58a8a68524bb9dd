import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
/** V8's `gc()`, exposed at run time: test workers do not start with `--expose-gc`. */
const gc = runInNewContext('gc') as () => void;

/** Runs `work` while a garbage collection runs every `everyMs` milliseconds. */
export async function whileCollecting<T>(work: () => Promise<T>, everyMs = 5): Promise<T> {
  const collecting = setInterval(gc, everyMs);
  try {
    return await work();
  } finally {
    clearInterval(collecting);
  }
}

/**
 * What `promise` settles to, or `late` when a timer of `ms` fires first. Timers fire in the order
 * they are due, so with a short timer under test and a long `ms`, `late` means the short one was
 * lost, however busy the machine: a lost timer fails the test instead of hanging it.
 */
export function orIfLate<T, L>(promise: Promise<T>, late: L, ms = 5000): Promise<T | L> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(late), ms);
    promise.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (error: unknown) => (clearTimeout(timer), reject(error)),
    );
  });
}
