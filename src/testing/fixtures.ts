import type { RuntimeSnapshot } from '../core/control/control.schema.js';
import { createRuntime } from '../index.js';
import { OverlayBlobStore } from './overlay-blob-store.js';
import { originOf, worldOf, type CreatedAccount, type TestWorld, type WorldOrigin } from './test-world.js';

/** What a fixture keeps of the world its build made. */
interface Fixture {
  snapshot: RuntimeSnapshot;
  origin: WorldOrigin;
  accounts: Record<string, CreatedAccount & { api_key: string }>;
}

const fixtures = new WeakMap<() => unknown, Promise<Fixture>>();

/**
 * A world built once per process and handed out fresh: the first call with `build` runs it and
 * keeps a snapshot of the world it answers (and answers that world); every later call with the
 * same function answers a new, independent world restored from the snapshot (same agents, keys,
 * clock, random state and file bytes), which is far cheaper than building it again.
 * @throws whatever `build` throws (a later call then builds again)
 * @throws Error when `build` answers something other than a TestWorld of this module
 */
export async function loadFixture<W extends TestWorld<string>>(build: () => W | Promise<W>): Promise<W> {
  const known = fixtures.get(build);
  if (known) return (await restoreWorld(await known)) as W;
  let built!: W;
  const fixture = (async (): Promise<Fixture> => {
    built = await build();
    const origin = originOf(built);
    const accounts: Fixture['accounts'] = {};
    for (const name of Object.keys(built.keys)) accounts[name] = { ...built.created[name]!, api_key: built.keys[name]! };
    return { snapshot: await built.runtime.sim.snapshot(), origin, accounts };
  })();
  fixtures.set(build, fixture);
  try {
    await fixture;
  } catch (error) {
    fixtures.delete(build);
    throw error;
  }
  return built;
}

/** A new world from a fixture's snapshot: its own runtime, its own writes, the fixture's blobs underneath. */
async function restoreWorld(fixture: Fixture): Promise<TestWorld<string>> {
  const { origin } = fixture;
  const blobs = new OverlayBlobStore(origin.blobs);
  const runtime = await createRuntime({ ...origin.runtime, seed: origin.seed, blobs });
  await runtime.sim.restore(fixture.snapshot);
  return worldOf(runtime, fixture.accounts, { ...origin, blobs });
}
