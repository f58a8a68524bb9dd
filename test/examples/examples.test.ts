import { describe, expect, it } from 'vitest';
import { overHttp } from '../../examples/over-http.js';
import { quickstart } from '../../examples/quickstart.js';

describe('examples', () => {
  it('quickstart updates a profile, verifies the identity credential and moves the clock', async () => {
    const result = await quickstart();
    expect(result.profile.bio).toBe('I book flights.');
    expect(result.publicProfile).not.toHaveProperty('email');
    expect(result.verifiedSubject).toMatchObject({ handle: 'alice.agents.test', agent_id: result.profile.agent_id });
    expect(result.now).toBe('2026-01-04T00:00:00.000Z');
  });

  it('over-http creates an agent over a real socket and reads its profile', async () => {
    const result = await overHttp();
    expect(result.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(result.profile.handle).toBe('bob.agents.test');
    expect(result.profile.email).toBe('bob@agents.test');
  });
});
