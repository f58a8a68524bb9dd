import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../../src/index.js';

describe('compute.run and the filesystem quota', () => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await createRuntime({ seed: 3, compute: { quotaBytes: 1_000_000, poolSize: 2 } });
  });
  afterAll(() => runtime.close());

  it('keeps the files of only one of two parallel runs that each fit the quota but not together', async () => {
    const { api_key } = await runtime.createAgent({ name: 'alice' });
    const alice = runtime.agent(api_key);
    const write = (name: string) => alice.compute.run({ runtime: 'typescript', code: `import fs from "fs"; fs.writeFileSync("/home/agent/${name}", "x".repeat(600000));` });
    const results = await Promise.all([write('one'), write('two')]);
    expect(results.map((result) => result.exit_code).sort()).toEqual([0, 1]);
    expect(results.find((result) => result.exit_code === 1)?.stderr).toMatch(/quota/);
    const listing = await alice.compute.listFs({ path: '/home/agent' });
    expect(listing.entries.reduce((total, entry) => total + entry.size, 0)).toBeLessThanOrEqual(1_000_000);
    expect(listing.entries).toHaveLength(1);
  });
});
