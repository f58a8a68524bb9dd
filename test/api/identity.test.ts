import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UpdateProfileBody } from '../../src/index.js';
import { ISO_MS_Z, TRANSPORTS, expectApiError, openWorld, type TestAgent, type World } from '../support/transports.js';

const PROFILE_FIELDS = ['agent_id', 'avatar_url', 'bio', 'created_at', 'display_name', 'email', 'handle', 'reputation'];

describe.each(TRANSPORTS)('identity (%s)', (kind) => {
  let world: World;
  let alice: TestAgent;

  beforeEach(async () => {
    world = await openWorld(kind);
    alice = await world.newAgent('alice', { display_name: 'Alice', bio: 'Pays her invoices.' });
  });
  afterEach(() => world.close());

  describe('POST /_sim/agents', () => {
    it('answers the agent id, handle, email and an API key', () => {
      expect(alice.agent_id).toMatch(/^agt_/);
      expect(alice.handle).toBe('alice.agents.test');
      expect(alice.email).toBe('alice@agents.test');
      expect(alice.api_key).toMatch(/^sk_.{40}$/);
    });

    it('refuses a name that is already taken with 409 already_exists on name', async () => {
      await expectApiError(world.sim.createAgent({ name: 'alice' }), 409, 'already_exists', 'name');
    });

    it.each(['credentials', 'admin', 'root', 'support', 'postmaster', 'abuse', 'noreply'])('refuses the reserved name %s with 400 invalid_request on name', async (name) => {
      await expectApiError(world.sim.createAgent({ name }), 400, 'invalid_request', 'name');
      // `/v1/agent/credentials` is the credentials route over HTTP, so only the others are handles.
      if (name !== 'credentials') await expectApiError(world.anonymous.identity.getPublicProfile(name), 404, 'not_found');
    });

    it.each([
      ['uppercase letters', 'Alice2'],
      ['a single character', 'a'],
      ['33 characters', 'a'.repeat(33)],
      ['a leading hyphen', '-alice'],
      ['a dot', 'al.ice'],
      ['an empty name', ''],
    ])('refuses a name with %s with 400 invalid_request on name', async (_what, name) => {
      await expectApiError(world.sim.createAgent({ name }), 400, 'invalid_request', 'name');
    });

    it('answers a repeat with the same Idempotency-Key with the same agent instead of 409', async () => {
      const first = await world.sim.createAgent({ name: 'carol' }, { idempotencyKey: 'create-carol' });
      const again = await world.sim.createAgent({ name: 'carol' }, { idempotencyKey: 'create-carol' });
      expect(again).toEqual(first);
      await expectApiError(world.sim.createAgent({ name: 'dora' }, { idempotencyKey: 'create-carol' }), 409, 'idempotency_conflict');
      await expectApiError(world.anonymous.identity.getPublicProfile('dora'), 404, 'not_found');
    });

    it('lets exactly one of two concurrent creations of the same name win', async () => {
      const results = await Promise.allSettled([world.sim.createAgent({ name: 'twin' }), world.sim.createAgent({ name: 'twin' })]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]!.reason).toMatchObject({ status: 409, code: 'already_exists', param: 'name' });
    });

    it('counts display_name in code points at creation too (64 emoji ok, 65 refused)', async () => {
      const created = await world.newAgent('emoji', { display_name: '🦊'.repeat(64) });
      expect((await created.client.identity.getProfile()).display_name).toBe('🦊'.repeat(64));
      await expectApiError(world.sim.createAgent({ name: 'emoji2', display_name: '🦊'.repeat(65) }), 400, 'invalid_request', 'display_name');
    });

    it('accepts names of 2 and 32 characters, digits and inner hyphens', async () => {
      for (const name of ['b2', 'b'.repeat(32), '0-agent-9']) {
        const created = await world.sim.createAgent({ name });
        expect(created.handle).toBe(`${name}.agents.test`);
      }
    });
  });

  describe('GET /v1/agent', () => {
    it('answers the full profile of the calling agent', async () => {
      const profile = await alice.client.identity.getProfile();
      expect(Object.keys(profile).sort()).toEqual(PROFILE_FIELDS);
      expect(profile).toMatchObject({
        agent_id: alice.agent_id,
        handle: 'alice.agents.test',
        email: 'alice@agents.test',
        display_name: 'Alice',
        bio: 'Pays her invoices.',
        avatar_url: null,
      });
    });

    it('gives reputation as an integer from 0 to 100', async () => {
      const { reputation } = await alice.client.identity.getProfile();
      expect(Number.isInteger(reputation)).toBe(true);
      expect(reputation).toBeGreaterThanOrEqual(0);
      expect(reputation).toBeLessThanOrEqual(100);
    });

    it('writes created_at from the service clock, ISO 8601 with milliseconds and Z', async () => {
      const { created_at } = await alice.client.identity.getProfile();
      expect(created_at).toMatch(ISO_MS_Z);
      expect(created_at).toBe((await world.sim.getClock()).now);
    });

    it('uses the name as display name when none was given', async () => {
      const bob = await world.newAgent('bob');
      expect(await bob.client.identity.getProfile()).toMatchObject({ display_name: 'bob', bio: null, avatar_url: null });
    });
  });

  describe('PATCH /v1/agent', () => {
    it('changes only the given fields and answers the full profile', async () => {
      const before = await alice.client.identity.getProfile();
      const after = await alice.client.identity.updateProfile({ bio: 'Now with a new bio.' });
      expect(after).toEqual({ ...before, bio: 'Now with a new bio.' });
      expect(await alice.client.identity.getProfile()).toEqual(after);
    });

    it('sets display_name, bio and avatar_url together', async () => {
      const after = await alice.client.identity.updateProfile({ display_name: 'Alice A.', bio: 'b', avatar_url: 'https://img.example/a.png' });
      expect(after).toMatchObject({ display_name: 'Alice A.', bio: 'b', avatar_url: 'https://img.example/a.png' });
    });

    it('refuses a body that is not an object (null) with 400 invalid_request', async () => {
      await expectApiError(alice.client.identity.updateProfile(null as unknown as UpdateProfileBody), 400, 'invalid_request');
      expect((await alice.client.identity.getProfile()).bio).toBe('Pays her invoices.');
    });

    it('an empty body changes nothing', async () => {
      const before = await alice.client.identity.getProfile();
      expect(await alice.client.identity.updateProfile({})).toEqual(before);
    });

    it('accepts a display_name of 64 code points even when they are emoji (128 UTF-16 units)', async () => {
      const name = '😀'.repeat(64);
      expect(name.length).toBe(128);
      expect((await alice.client.identity.updateProfile({ display_name: name })).display_name).toBe(name);
    });

    it('refuses a display_name of 65 code points with 400 invalid_request on display_name', async () => {
      await expectApiError(alice.client.identity.updateProfile({ display_name: '😀'.repeat(65) }), 400, 'invalid_request', 'display_name');
      await expectApiError(alice.client.identity.updateProfile({ display_name: 'x'.repeat(65) }), 400, 'invalid_request', 'display_name');
      expect((await alice.client.identity.getProfile()).display_name).toBe('Alice');
    });

    it('accepts a bio of 280 characters and refuses 281', async () => {
      expect((await alice.client.identity.updateProfile({ bio: 'é'.repeat(280) })).bio).toBe('é'.repeat(280));
      await expectApiError(alice.client.identity.updateProfile({ bio: 'b'.repeat(281) }), 400, 'invalid_request', 'bio');
    });

    it('refuses an avatar_url that is not https with 400 invalid_request on avatar_url', async () => {
      await expectApiError(alice.client.identity.updateProfile({ avatar_url: 'http://img.example/a.png' }), 400, 'invalid_request', 'avatar_url');
      await expectApiError(alice.client.identity.updateProfile({ avatar_url: 'not a url' }), 400, 'invalid_request', 'avatar_url');
      expect((await alice.client.identity.getProfile()).avatar_url).toBeNull();
    });

    it('clears bio and avatar_url with null', async () => {
      await alice.client.identity.updateProfile({ avatar_url: 'https://img.example/a.png' });
      const cleared = await alice.client.identity.updateProfile({ bio: null, avatar_url: null });
      expect(cleared).toMatchObject({ bio: null, avatar_url: null, display_name: 'Alice' });
    });

    it('refuses an unknown field with 400 invalid_request naming it', async () => {
      await expectApiError(alice.client.identity.updateProfile({ nickname: 'Al' } as unknown as UpdateProfileBody), 400, 'invalid_request', 'nickname');
    });

    it('refuses fields the agent cannot change (email, handle) with 400 invalid_request', async () => {
      await expectApiError(alice.client.identity.updateProfile({ email: 'x@evil.test' } as unknown as UpdateProfileBody), 400, 'invalid_request', 'email');
      await expectApiError(alice.client.identity.updateProfile({ handle: 'mallory' } as unknown as UpdateProfileBody), 400, 'invalid_request', 'handle');
      expect(await alice.client.identity.getProfile()).toMatchObject({ email: 'alice@agents.test', handle: 'alice.agents.test' });
    });

    it('refuses a display_name of the wrong type or empty', async () => {
      await expectApiError(alice.client.identity.updateProfile({ display_name: 42 } as unknown as UpdateProfileBody), 400, 'invalid_request', 'display_name');
      await expectApiError(alice.client.identity.updateProfile({ display_name: '' }), 400, 'invalid_request', 'display_name');
      // null clears bio and avatar_url only; every agent keeps a display name.
      await expectApiError(alice.client.identity.updateProfile({ display_name: null } as unknown as UpdateProfileBody), 400, 'invalid_request', 'display_name');
      expect((await alice.client.identity.getProfile()).display_name).toBe('Alice');
    });

    it('raises reputation as the profile fills in', async () => {
      const bare = await world.newAgent('bare');
      const before = (await bare.client.identity.getProfile()).reputation;
      const after = (await bare.client.identity.updateProfile({ display_name: 'Bare', bio: 'hello', avatar_url: 'https://img.example/b.png' })).reputation;
      expect(after).toBeGreaterThan(before);
    });
  });

  describe('GET /v1/agent/{handle}', () => {
    it('answers the public profile by name, without a key', async () => {
      const profile = await world.anonymous.identity.getPublicProfile('alice');
      const { email: _email, ...expected } = await alice.client.identity.getProfile();
      expect(profile).toEqual(expected);
    });

    it('answers the same profile with the .agents.test suffix', async () => {
      expect(await world.anonymous.identity.getPublicProfile('alice.agents.test')).toEqual(await world.anonymous.identity.getPublicProfile('alice'));
    });

    it('never shows the email', async () => {
      for (const handle of ['alice', 'alice.agents.test']) {
        const profile = await world.anonymous.identity.getPublicProfile(handle);
        expect(profile).not.toHaveProperty('email');
        expect(JSON.stringify(profile)).not.toContain('alice@agents.test');
      }
      expect(await alice.client.identity.getPublicProfile('alice')).not.toHaveProperty('email');
    });

    it('answers 404 not_found for an unknown handle', async () => {
      await expectApiError(world.anonymous.identity.getPublicProfile('nobody'), 404, 'not_found');
      await expectApiError(world.anonymous.identity.getPublicProfile('nobody.agents.test'), 404, 'not_found');
    });

    it('answers 404 not_found for a handle of another domain', async () => {
      await expectApiError(world.anonymous.identity.getPublicProfile('alice.other.test'), 404, 'not_found');
    });

    it('shows profile changes', async () => {
      await alice.client.identity.updateProfile({ display_name: 'Alice Updated' });
      expect((await world.anonymous.identity.getPublicProfile('alice')).display_name).toBe('Alice Updated');
    });
  });

  describe('GET /v1/agent/credentials routed before {handle}', () => {
    it('an agent named like a prefix of credentials is still found by handle', async () => {
      const cred = await world.newAgent('cred');
      expect((await world.anonymous.identity.getPublicProfile('cred')).agent_id).toBe(cred.agent_id);
      expect((await world.anonymous.identity.getPublicProfile('cred.agents.test')).agent_id).toBe(cred.agent_id);
    });

    it('the credentials route still answers the calling agent its credentials', async () => {
      const cred = await world.newAgent('cred');
      const { credentials } = await cred.client.identity.listCredentials();
      expect(credentials.length).toBeGreaterThan(0);
      expect(credentials[0]!.credential.credentialSubject).toMatchObject({ agent_id: cred.agent_id });
    });
  });
});
