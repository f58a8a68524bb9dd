import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/index.js';
import { ApiError } from '../../src/core/shared/api-error.js';

describe('live mode', () => {
  it('never signs credentials with the seed-derived (publicly reproducible) issuer key', async () => {
    const simulated = await createRuntime({ seed: 0 });
    const live = await createRuntime({ mode: 'live', adminToken: 'admin' });
    const liveKey = (await live.anonymous().identity.didDocument()).verificationMethod[0]!.publicKeyJwk;
    const seedKey = (await simulated.anonymous().identity.didDocument()).verificationMethod[0]!.publicKeyJwk;
    expect(liveKey.x).not.toBe(seedKey.x);
  });

  it('refuses to advance a real-time clock with 400 invalid_request', async () => {
    const live = await createRuntime({ mode: 'live', adminToken: 'admin' });
    await expect(live.simClient().advanceClock({ seconds: 1 })).rejects.toMatchObject({ status: 400, code: 'invalid_request' });
  });
});

describe('POST /_sim/clock/advance validation', () => {
  it.each([
    [{}, 'seconds'],
    [{ seconds: 1, to: '2027-01-01T00:00:00Z' }, 'to'],
    [{ seconds: '10' }, 'seconds'],
  ])('names the faulty field of %j', async (body, param) => {
    const runtime = await createRuntime();
    const error = await runtime
      .simClient()
      .advanceClock(body as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_request', param });
  });
});
