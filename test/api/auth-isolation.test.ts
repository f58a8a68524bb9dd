import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fillPath } from '../../src/core/api/route.js';
import { RAW_TRANSPORTS, TRANSPORTS, expectApiError, expectErrorResponse, jsonInit, openWorld, type TestAgent, type World } from '../support/transports.js';

describe.each(TRANSPORTS)('authentication and isolation (%s)', (kind) => {
  let world: World;
  let alice: TestAgent;
  let bob: TestAgent;

  beforeEach(async () => {
    world = await openWorld(kind);
    alice = await world.newAgent('alice', { display_name: 'Alice' });
    bob = await world.newAgent('bob', { display_name: 'Bob' });
  });
  afterEach(() => world.close());

  describe('an unknown API key', () => {
    it('answers 401 unauthorized on every agent call', async () => {
      const stranger = world.agent('sk_this-key-was-never-issued');
      await expectApiError(stranger.identity.getProfile(), 401, 'unauthorized');
      await expectApiError(stranger.identity.updateProfile({ bio: 'hijacked' }), 401, 'unauthorized');
      await expectApiError(stranger.identity.listCredentials(), 401, 'unauthorized');
      expect((await alice.client.identity.getProfile()).bio).toBeNull();
    });

    it('is checked before the body is validated', async () => {
      await expectApiError(world.agent('sk_unknown').identity.updateProfile({ display_name: 'x'.repeat(100) }), 401, 'unauthorized');
    });
  });

  describe('a client without a key', () => {
    it('answers 401 unauthorized on every agent call', async () => {
      await expectApiError(world.anonymous.identity.getProfile(), 401, 'unauthorized');
      await expectApiError(world.anonymous.identity.updateProfile({ bio: 'x' }), 401, 'unauthorized');
      await expectApiError(world.anonymous.identity.listCredentials(), 401, 'unauthorized');
    });

    it('still reads public profiles and the DID document', async () => {
      expect((await world.anonymous.identity.getPublicProfile('alice')).agent_id).toBe(alice.agent_id);
      expect((await world.anonymous.identity.didDocument()).id).toBe('did:web:agents.test');
    });
  });

  describe("one agent's key", () => {
    it("only ever sees that agent's profile", async () => {
      expect((await alice.client.identity.getProfile()).agent_id).toBe(alice.agent_id);
      expect((await bob.client.identity.getProfile()).agent_id).toBe(bob.agent_id);
      expect((await alice.client.identity.getProfile()).email).toBe('alice@agents.test');
    });

    it("only ever sees that agent's credentials", async () => {
      for (const agent of [alice, bob]) {
        const { credentials } = await agent.client.identity.listCredentials();
        expect(credentials.length).toBeGreaterThan(0);
        for (const { credential } of credentials) {
          expect(credential.credentialSubject).toMatchObject({ agent_id: agent.agent_id, handle: agent.handle });
        }
      }
      const aliceIds = (await alice.client.identity.listCredentials()).credentials.map((c) => c.credential_id);
      const bobIds = (await bob.client.identity.listCredentials()).credentials.map((c) => c.credential_id);
      expect(aliceIds.filter((id) => bobIds.includes(id))).toEqual([]);
    });

    it("changes only that agent's profile", async () => {
      await alice.client.identity.updateProfile({ display_name: 'Alice Prime', bio: 'mine' });
      expect(await bob.client.identity.getProfile()).toMatchObject({ display_name: 'Bob', bio: null });
      expect(await world.anonymous.identity.getPublicProfile('bob')).toMatchObject({ display_name: 'Bob', bio: null });
    });
  });
});

describe.each(RAW_TRANSPORTS)('Authorization header on agent routes (raw, %s)', (kind) => {
  let world: World;
  let apiKey: string;

  beforeEach(async () => {
    world = await openWorld(kind);
    apiKey = (await world.newAgent('alice')).api_key;
  });
  afterEach(() => world.close());

  /** Every agent route of the runtime, as a request with the given headers. */
  function agentRequests(headers: Record<string, string>) {
    return world.runtime
      .routes()
      .filter((route) => route.auth === 'agent')
      .map((route) => {
        const path = fillPath(route.path, Object.fromEntries([...route.path.matchAll(/\{(\w+)\}/g)].map((m) => [m[1]!, 'x'])));
        const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
        // A route whose query has required fields (GET /v1/compute/fs/content?path=) answers 400 without them.
        const needsQuery = route.query !== undefined && !route.query.safeParse({}).success;
        return { label: `${route.method} ${route.path}`, path, needsQuery, init: jsonInit(route.method, hasBody ? {} : undefined, headers) };
      });
  }

  it('covers at least the identity routes', () => {
    const labels = agentRequests({}).map((r) => r.label);
    expect(labels).toEqual(expect.arrayContaining(['GET /v1/agent', 'PATCH /v1/agent', 'GET /v1/agent/credentials']));
  });

  it.each([
    ['no Authorization header', {}],
    ['a Basic scheme', { authorization: 'Basic x' }],
    ['Bearer without a key', { authorization: 'Bearer' }],
    ['Bearer with only spaces', { authorization: 'Bearer    ' }],
    ['an unknown key', { authorization: 'Bearer sk_unknown' }],
    ['the key with a different case', { authorization: 'Bearer SK_UNKNOWN' }],
  ] as const)('answers 401 unauthorized with %s on every agent route', async (_what, headers) => {
    for (const request of agentRequests(headers)) {
      const response = await world.raw(request.path, request.init);
      await expectErrorResponse(response, 401, 'unauthorized', null);
    }
  });

  it('answers 200 with the right key on every agent GET route without path parameters or required query fields', async () => {
    const requests = agentRequests({ authorization: `Bearer ${apiKey}` }).filter((r) => r.label.startsWith('GET ') && !r.label.includes('{') && !r.needsQuery);
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests) {
      const response = await world.raw(request.path, request.init);
      expect(response.status, request.label).toBe(200);
    }
    const profile = await world.raw('/v1/agent', { headers: { authorization: `Bearer ${apiKey}` } });
    expect(await profile.json()).toMatchObject({ handle: 'alice.agents.test' });
  });

  it('accepts the scheme name in any case', async () => {
    const response = await world.raw('/v1/agent', { headers: { authorization: `bearer ${apiKey}` } });
    expect(response.status).toBe(200);
  });

  it('refuses a valid key under another scheme or without a scheme', async () => {
    for (const authorization of [`Basic ${apiKey}`, `Token ${apiKey}`, apiKey, `Bearer: ${apiKey}`]) {
      for (const request of agentRequests({ authorization })) {
        await expectErrorResponse(await world.raw(request.path, request.init), 401, 'unauthorized', null);
      }
    }
  });

  it('refuses a key followed by other text', async () => {
    await expectErrorResponse(await world.raw('/v1/agent', { headers: { authorization: `Bearer ${apiKey} extra` } }), 401, 'unauthorized');
  });

  it('answers GET /v1/agent/credentials without a key with 401, not as a public handle', async () => {
    await expectErrorResponse(await world.raw('/v1/agent/credentials'), 401, 'unauthorized');
  });

  it('answers the public profile without any key', async () => {
    const response = await world.raw('/v1/agent/alice');
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body.handle).toBe('alice.agents.test');
    expect(body).not.toHaveProperty('email');
  });

  it('answers the public profile with an unknown or malformed key too (it is public)', async () => {
    for (const authorization of ['Bearer sk_unknown', 'Basic x']) {
      const response = await world.raw('/v1/agent/alice', { headers: { authorization } });
      expect(response.status).toBe(200);
    }
  });
});
