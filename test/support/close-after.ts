import { afterEach } from 'vitest';

/** What a test opens and must close when it ends: a runtime, a store. */
export interface Closable {
  close?(): unknown;
}

/**
 * Registers, in the suite it is called in, a hook (`afterEach` unless given `afterAll`) that closes
 * everything kept since the hook last ran, all at once; returns `keep`, which hands back what it is
 * given, so a test writes `const runtime = keep(await createRuntime())`.
 */
export function closeAfter<T extends Closable>(hook: (run: () => Promise<void>) => void = afterEach): <U extends T>(item: U) => U {
  const kept: T[] = [];
  hook(async () => {
    await Promise.all(kept.splice(0).map(async (item) => item.close?.()));
  });
  return (item) => {
    kept.push(item);
    return item;
  };
}
