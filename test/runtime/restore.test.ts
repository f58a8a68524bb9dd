import { describe, expect, it } from 'vitest';
import { canonicalJson, createRuntime } from '../../src/index.js';

describe('sim.restore', () => {
  it('refuses a snapshot with an unusable random state with 400 on random, changing nothing', async () => {
    const runtime = await createRuntime({ seed: 3 });
    await runtime.createAgent({ name: 'kept' });
    const before = canonicalJson(await runtime.sim.snapshot());
    const other = await createRuntime({ seed: 3 });
    const broken = { ...(await other.sim.snapshot()), random: 'not-a-state' };
    await expect(runtime.sim.restore(broken)).rejects.toMatchObject({ status: 400, code: 'invalid_request', param: 'random' });
    expect(canonicalJson(await runtime.sim.snapshot())).toBe(before);
  });
});
