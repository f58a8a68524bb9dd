import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRANSPORTS, expectApiError, openWorld, type TestAgent, type World } from '../support/transports.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe.each(TRANSPORTS)('compute through the derived client (%s)', (kind) => {
  let world: World;
  let agent: TestAgent;

  beforeAll(async () => {
    world = await openWorld(kind, { compute: { poolSize: 1 } });
    agent = await world.newAgent('runner');
  });
  afterAll(() => world.close());

  it('writes, lists, reads and deletes files, and a run sees them', async () => {
    expect(await agent.client.compute.writeFs({ path: '/work/in.txt', content: b64('from the api') })).toMatchObject({ path: '/work/in.txt', size: 12 });
    expect((await agent.client.compute.listFs({ path: '/work' })).entries.map((entry) => entry.name)).toEqual(['in.txt']);
    const result = await agent.client.compute.run({ runtime: 'bash', code: 'cat /work/in.txt; echo -n out > /work/out.txt' });
    expect(result).toMatchObject({ stdout: 'from the api', exit_code: 0 });
    expect(await agent.client.compute.readFs({ path: '/work/out.txt' })).toEqual({ path: '/work/out.txt', content: b64('out'), size: 3 });
    await agent.client.compute.deleteFs({ path: '/work' });
    await expectApiError(agent.client.compute.readFs({ path: '/work/out.txt' }), 404, 'not_found');
  }, 120_000);

  it('answers validation errors as ApiError 400 invalid_request', async () => {
    await expectApiError(agent.client.compute.run({ runtime: 'bash', code: 'true', timeout_seconds: 301 }), 400, 'invalid_request');
    await expectApiError(agent.client.compute.listFs({ path: 'relative' }), 400, 'invalid_request', 'path');
  });
});

describe('compute: the host stays responsive', () => {
  it('answers another request while a runaway run spins, and runtime.close() ends the run', async () => {
    const world = await openWorld('http', { compute: { poolSize: 1 } });
    const agent = await world.newAgent('spinner');
    let settled = false;
    const spinning = agent.client.compute.run({ runtime: 'typescript', code: 'while (true) {}', timeout_seconds: 300 }).then(
      (result) => ((settled = true), result),
      (error: unknown) => ((settled = true), error),
    );
    // The run's worker loads its interpreter and spins for up to 300 s; meanwhile the server answers.
    for (let i = 0; i < 20; i++) expect((await agent.client.compute.listFs()).path).toBe('/');
    const profile = await agent.client.identity.getProfile();
    expect(profile.handle).toContain('spinner');
    expect(settled).toBe(false);
    await world.close();
    await spinning;
    expect(settled).toBe(true);
  }, 120_000);
});
