/** Runs a unit's outside work in order; the first failure is rethrown once all ran. */
export async function runOutside(works: Array<() => Promise<unknown>>): Promise<void> {
  let failure: { error: unknown } | undefined;
  for (const work of works) {
    try {
      await work();
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure) throw failure.error;
}
