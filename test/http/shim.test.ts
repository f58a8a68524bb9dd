import { afterEach, describe, expect, it } from 'vitest';
import type { EventPage, RuntimeOptions } from '../../src/index.js';
import { RAW_TRANSPORTS, bearer, expectErrorResponse, jsonInit, openRawWorld, type RawTransportKind, type World } from '../support/transports.js';

describe.each(RAW_TRANSPORTS)('the HTTP shim (%s)', (kind: RawTransportKind) => {
  let world: World | undefined;
  const open = async (options: RuntimeOptions = {}) => (world = await openRawWorld(kind, options));
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  describe('request bodies', () => {
    it('answers malformed JSON with 400 invalid_request', async () => {
      const w = await open();
      await expectErrorResponse(await w.raw('/_sim/agents', jsonInit('POST', '{"name": "alice"')), 400, 'invalid_request');
      await expectErrorResponse(await w.raw('/_sim/agents', jsonInit('POST', 'not json at all')), 400, 'invalid_request');
      const { api_key } = await w.sim.createAgent({ name: 'alice' });
      await expectErrorResponse(await w.raw('/v1/agent', jsonInit('PATCH', '{bio: x}', bearer(api_key))), 400, 'invalid_request');
    });

    it('answers a JSON body that is not an object with 400 invalid_request', async () => {
      const w = await open();
      await expectErrorResponse(await w.raw('/_sim/agents', jsonInit('POST', '[]')), 400, 'invalid_request');
      await expectErrorResponse(await w.raw('/_sim/agents', jsonInit('POST', '"alice"')), 400, 'invalid_request');
      const { api_key } = await w.sim.createAgent({ name: 'alice' });
      for (const body of ['null', '[]', '42']) {
        await expectErrorResponse(await w.raw('/v1/agent', jsonInit('PATCH', body, bearer(api_key))), 400, 'invalid_request');
      }
    });

    it('treats an empty PATCH body as no change', async () => {
      const w = await open();
      const { api_key } = await w.sim.createAgent({ name: 'alice', bio: 'kept' });
      const response = await w.raw('/v1/agent', { method: 'PATCH', headers: bearer(api_key) });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ bio: 'kept' });
    });

    it('answers a missing required field with 400 invalid_request naming it', async () => {
      const w = await open();
      await expectErrorResponse(await w.raw('/_sim/agents', jsonInit('POST', {})), 400, 'invalid_request', 'name');
    });

    it('answers a body over maxBodyBytes with 413 payload_too_large', async () => {
      const w = await open({ maxBodyBytes: 1024 });
      const big = { name: 'alice', bio: 'x'.repeat(2000) };
      await expectErrorResponse(await w.raw('/_sim/agents', jsonInit('POST', big)), 413, 'payload_too_large');
      const { api_key } = await w.sim.createAgent({ name: 'bob' });
      await expectErrorResponse(await w.raw('/v1/agent', jsonInit('PATCH', { bio: 'y'.repeat(5000) }, bearer(api_key))), 413, 'payload_too_large');
      await expectErrorResponse(await w.raw('/v1/agent/alice'), 404, 'not_found');
    });

    it('answers a streamed body (no Content-Length) that grows over maxBodyBytes with 413, and creates nothing', async () => {
      const w = await open({ maxBodyBytes: 1024 });
      const chunks = ['{"name": "alice", "bio": "', 'x'.repeat(800), 'y'.repeat(800), '"}'];
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = chunks.shift();
          if (next === undefined) controller.close();
          else controller.enqueue(new TextEncoder().encode(next));
        },
      });
      const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit;
      await expectErrorResponse(await w.raw('/_sim/agents', init), 413, 'payload_too_large');
      await expectErrorResponse(await w.raw('/v1/agent/alice'), 404, 'not_found');
    });

    it('accepts a body under maxBodyBytes', async () => {
      const w = await open({ maxBodyBytes: 1024 });
      const response = await w.raw('/_sim/agents', jsonInit('POST', { name: 'alice', bio: 'x'.repeat(200) }));
      expect(response.status).toBe(201);
    });
  });

  describe('unknown routes', () => {
    it.each([
      ['GET', '/v2/agent'],
      ['GET', '/nowhere'],
      ['GET', '/v1/agent/alice/extra'],
      ['GET', '/v1/agent/'],
      ['GET', '/v1//agent'],
      ['POST', '/v1/wallet'],
    ])('answers %s %s with 404 not_found as JSON', async (method, path) => {
      const w = await open();
      const body = await expectErrorResponse(await w.raw(path, { method }), 404, 'not_found', null);
      expect(body.error.message).toBeTruthy();
    });
  });

  describe('methods a path does not take', () => {
    it.each([
      ['DELETE', '/v1/agent', 'GET, HEAD, PATCH'],
      ['POST', '/v1/agent/credentials', 'GET, HEAD'],
      ['PUT', '/v1/agent/alice', 'GET, HEAD'],
      ['GET', '/v1/wallet/send', 'POST'],
      ['PATCH', '/_sim/wallet/failures', 'POST, DELETE'],
      ['POST', '/openapi.json', 'GET, HEAD'],
    ])('answers %s %s with 405 method_not_allowed and Allow: %s', async (method, path, allow) => {
      const w = await open();
      const response = await w.raw(path, jsonInit(method, method === 'GET' ? undefined : {}));
      expect(response.headers.get('allow')).toBe(allow);
      await expectErrorResponse(response, 405, 'method_not_allowed', null);
    });

    it('answers HEAD like GET, without a body', async () => {
      const w = await open();
      await w.sim.createAgent({ name: 'alice' });
      const response = await w.raw('/v1/agent/alice', { method: 'HEAD' });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.text()).toBe('');
    });
  });

  describe('content types', () => {
    it.each([
      ['text/plain', 'text/plain'],
      ['a form', 'application/x-www-form-urlencoded'],
      ['no Content-Type', undefined],
    ])('answers a JSON body sent as %s with 415 unsupported_media_type and creates nothing', async (_what, type) => {
      const w = await open();
      const response = await w.raw('/_sim/agents', {
        method: 'POST',
        headers: type ? { 'content-type': type } : {},
        // Bytes, so that fetch adds no Content-Type of its own.
        body: new TextEncoder().encode(JSON.stringify({ name: 'alice' })),
      });
      await expectErrorResponse(response, 415, 'unsupported_media_type', null);
      await expectErrorResponse(await w.raw('/v1/agent/alice'), 404, 'not_found');
    });

    it('takes application/json with parameters and +json types', async () => {
      const w = await open();
      for (const [name, type] of [
        ['alice', 'application/json; charset=utf-8'],
        ['bob', 'Application/JSON'],
        ['carol', 'application/merge-patch+json'],
      ] as const) {
        const response = await w.raw('/_sim/agents', { method: 'POST', headers: { 'content-type': type }, body: JSON.stringify({ name }) });
        expect(response.status, type).toBe(201);
      }
    });

    it('answers an upload that is not multipart/form-data with 415, after authentication', async () => {
      const w = await open();
      const { api_key } = await w.sim.createAgent({ name: 'alice' });
      const json = jsonInit('POST', { file: 'x' });
      await expectErrorResponse(await w.raw('/v1/memory/files', { ...json, headers: { ...(json.headers as Record<string, string>), ...bearer(api_key) } }), 415, 'unsupported_media_type');
      await expectErrorResponse(await w.raw('/v1/memory/files', json), 401, 'unauthorized');
    });

    it('answers a body that is not UTF-8 with 400 invalid_request', async () => {
      const w = await open();
      const response = await w.raw('/_sim/agents', { method: 'POST', headers: { 'content-type': 'application/json' }, body: new Uint8Array([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]) });
      await expectErrorResponse(response, 400, 'invalid_request');
    });
  });

  describe('paths and queries', () => {
    it('decodes percent-encoded path parameters', async () => {
      const w = await open();
      await w.sim.createAgent({ name: 'alice' });
      const response = await w.raw('/v1/agent/al%69ce');
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ handle: 'alice.agents.test' });
    });

    it('resolves dot segments as a URL does', async () => {
      const w = await open();
      await w.sim.createAgent({ name: 'alice' });
      expect((await w.raw('/v1/wallet/../agent/alice')).status).toBe(200);
    });

    it('reads a repeated query parameter as a list and refuses it where one value is expected', async () => {
      const w = await open();
      await expectErrorResponse(await w.raw('/_sim/events?limit=1&limit=2'), 400, 'invalid_request', 'limit');
      expect((await w.raw('/_sim/events?limit=2&after=0')).status).toBe(200);
    });
  });

  describe('internal errors', () => {
    it('answers 500 internal_error with a generic message and no stack or detail', async () => {
      const seen: Array<{ error: unknown; routeId: string }> = [];
      const w = await open({
        providers: {
          issuerKeys: {
            publicJwk: () => ({ kty: 'OKP', crv: 'Ed25519', x: 'AA' }),
            signJws: async () => {
              throw new Error('secret stack detail');
            },
          },
        },
        onInternalError: (error, routeId) => void seen.push({ error, routeId }),
      });
      const response = await w.raw('/_sim/agents', jsonInit('POST', { name: 'alice' }));
      const text = await response.clone().text();
      const body = await expectErrorResponse(response, 500, 'internal_error', null);
      expect(body.error.message).toBe('internal error');
      expect(text).not.toContain('secret stack detail');
      expect(text).not.toMatch(/\bat .*\.(ts|js):\d+/);
      expect(text).not.toContain('Error:');
      expect(seen).toHaveLength(1);
      expect(seen[0]!.routeId).toBe('sim.createAgent');
      expect((seen[0]!.error as Error).message).toBe('secret stack detail');
      // Nothing was half-created.
      await expectErrorResponse(await w.raw('/v1/agent/alice'), 404, 'not_found');
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the first answer with Idempotent-Replayed: true', async () => {
      const w = await open();
      const init = () => jsonInit('POST', { name: 'alice' }, { 'idempotency-key': 'create-alice' });
      const first = await w.raw('/_sim/agents', init());
      expect(first.status).toBe(201);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const second = await w.raw('/_sim/agents', init());
      expect(second.status).toBe(201);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(await second.json()).toEqual(await first.json());
    });

    it('never runs two concurrent requests with the same key twice', async () => {
      const w = await open();
      const send = () => w.raw('/_sim/agents', jsonInit('POST', { name: 'alice' }, { 'idempotency-key': 'race' }));
      const responses = await Promise.all([send(), send(), send()]);
      const bodies = await Promise.all(responses.map(async (r) => ({ status: r.status, replayed: r.headers.get('idempotent-replayed'), body: (await r.json()) as any })));
      const created = bodies.filter((b) => b.status === 201);
      expect(created.length).toBeGreaterThanOrEqual(1);
      expect(created.filter((b) => b.replayed === null)).toHaveLength(1);
      for (const b of created) expect(b.body).toEqual(created[0]!.body);
      for (const b of bodies.filter((b) => b.status !== 201)) {
        expect(b.status).toBe(409);
        expect(b.body.error.code).toBe('idempotency_key_in_use');
      }
    });

    it('answers the same key with another body with 409 idempotency_conflict', async () => {
      const w = await open();
      await w.raw('/_sim/agents', jsonInit('POST', { name: 'alice' }, { 'idempotency-key': 'k' }));
      await expectErrorResponse(await w.raw('/_sim/agents', jsonInit('POST', { name: 'bob' }, { 'idempotency-key': 'k' })), 409, 'idempotency_conflict');
      await expectErrorResponse(await w.raw('/v1/agent/bob'), 404, 'not_found');
    });

    it('replays a stored failure as that failure', async () => {
      const w = await open();
      await w.sim.createAgent({ name: 'alice' });
      const init = () => jsonInit('POST', { name: 'alice' }, { 'idempotency-key': 'dup' });
      await expectErrorResponse(await w.raw('/_sim/agents', init()), 409, 'already_exists', 'name');
      const again = await w.raw('/_sim/agents', init());
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      await expectErrorResponse(again, 409, 'already_exists', 'name');
    });

    it('does not store a request that failed validation', async () => {
      const w = await open();
      await expectErrorResponse(await w.raw('/_sim/agents', jsonInit('POST', { name: 'A' }, { 'idempotency-key': 'v' })), 400, 'invalid_request', 'name');
      const retry = await w.raw('/_sim/agents', jsonInit('POST', { name: 'a1' }, { 'idempotency-key': 'v' }));
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
    });

    it('refuses a key over 255 characters with 400 invalid_request', async () => {
      const w = await open();
      await expectErrorResponse(await w.raw('/_sim/agents', jsonInit('POST', { name: 'alice' }, { 'idempotency-key': 'k'.repeat(256) })), 400, 'invalid_request', 'Idempotency-Key');
    });
  });

  describe('GET /openapi.json', () => {
    it('is an OpenAPI 3.1.0 document listing every route with its method', async () => {
      const w = await open();
      const response = await w.raw('/openapi.json');
      expect(response.status).toBe(200);
      const doc = (await response.json()) as { openapi: string; paths: Record<string, Record<string, any>> };
      expect(doc.openapi).toBe('3.1.0');
      const routes = w.runtime.routes();
      expect(routes.length).toBeGreaterThan(0);
      for (const route of routes) {
        const operation = doc.paths[route.path]?.[route.method.toLowerCase()];
        expect(operation, `${route.method} ${route.path}`).toBeDefined();
        expect(operation.operationId).toBe(route.id);
        const success = operation.responses[String(route.status)];
        expect(success, `${route.id} ${route.status}`).toBeDefined();
        if (route.binary) {
          expect(success.content['*/*'].schema, route.id).toMatchObject({ type: 'string', format: 'binary' });
        } else if (route.response && route.status !== 204) {
          expect(success.content['application/json'].schema, route.id).toEqual(expect.any(Object));
          expect(Object.keys(success.content['application/json'].schema).length).toBeGreaterThan(0);
        }
        expect(operation.responses['500'].content['application/json'].schema.properties.error.properties.code.enum).toEqual(['internal_error']);
        for (const [, name] of route.path.matchAll(/\{(\w+)\}/g)) {
          expect(operation.parameters, `${route.id} path parameter ${name}`).toContainEqual(expect.objectContaining({ name, in: 'path', required: true }));
        }
      }
      const operations = Object.values(doc.paths).reduce((n, methods) => n + Object.keys(methods).length, 0);
      expect(operations).toBe(routes.length);
    });

    it('writes paths with {name} placeholders, never :name', async () => {
      const w = await open();
      const doc = (await (await w.raw('/openapi.json')).json()) as { paths: Record<string, unknown> };
      expect(Object.keys(doc.paths)).toContain('/v1/agent/{handle}');
      for (const path of Object.keys(doc.paths)) expect(path).not.toContain(':');
    });
  });

  describe('admin token', () => {
    it('guards /_sim: no token or a wrong one answers 401, Bearer <token> works', async () => {
      const w = await open({ adminToken: 't' });
      await expectErrorResponse(await w.raw('/_sim/clock'), 401, 'unauthorized');
      await expectErrorResponse(await w.raw('/_sim/clock', { headers: bearer('wrong') }), 401, 'unauthorized');
      await expectErrorResponse(await w.raw('/_sim/clock', { headers: bearer('tt') }), 401, 'unauthorized');
      await expectErrorResponse(await w.raw('/_sim/agents', jsonInit('POST', { name: 'alice' }, bearer('wrong'))), 401, 'unauthorized');
      const ok = await w.raw('/_sim/clock', { headers: bearer('t') });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({ now: '2026-01-01T00:00:00.000Z' });
      const created = await w.raw('/_sim/agents', jsonInit('POST', { name: 'alice' }, bearer('t')));
      expect(created.status).toBe(201);
    });

    it('is not an agent key', async () => {
      const w = await open({ adminToken: 't' });
      await expectErrorResponse(await w.raw('/v1/agent', { headers: bearer('t') }), 401, 'unauthorized');
    });

    it('is passed by the control-plane client of the harness', async () => {
      const w = await open({ adminToken: 't' });
      expect((await w.sim.getClock()).now).toBe('2026-01-01T00:00:00.000Z');
    });
  });

  describe('live mode', () => {
    it('hides every /_sim route (404 not_found) when no admin token is configured', async () => {
      const w = await open({ mode: 'live' });
      const adminRoutes = w.runtime.routes().filter((route) => route.auth === 'admin');
      expect(adminRoutes.length).toBeGreaterThan(0);
      for (const route of adminRoutes) {
        const path = route.path.replace(/\{(\w+)\}/g, 'x');
        const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
        await expectErrorResponse(await w.raw(path, jsonInit(route.method, hasBody ? {} : undefined)), 404, 'not_found');
      }
    });

    it('opens /_sim with the admin token, and refuses to move a real clock', async () => {
      const w = await open({ mode: 'live', adminToken: 't' });
      expect((await w.raw('/_sim/clock', { headers: bearer('t') })).status).toBe(200);
      await expectErrorResponse(await w.raw('/_sim/clock/advance', jsonInit('POST', { seconds: 1 }, bearer('t'))), 400, 'invalid_request');
    });
  });

  describe('POST /_sim/clock/advance', () => {
    it.each([
      ['negative seconds', { seconds: -1 }],
      ['to that is not a date-time', { to: 'yesterday' }],
      ['to in the past', { to: '2025-12-31T23:59:59.000Z' }],
      ['both seconds and to', { seconds: 1, to: '2026-01-02T00:00:00.000Z' }],
      ['neither field', {}],
      ['seconds as a string', { seconds: '10' }],
    ])('answers %s with 400 invalid_request and leaves the clock alone', async (_what, body) => {
      const w = await open();
      await expectErrorResponse(await w.raw('/_sim/clock/advance', jsonInit('POST', body)), 400, 'invalid_request');
      expect((await w.sim.getClock()).now).toBe('2026-01-01T00:00:00.000Z');
    });

    it('names the faulty field when seconds is negative or to is unreadable or in the past', async () => {
      const w = await open();
      await expectErrorResponse(await w.raw('/_sim/clock/advance', jsonInit('POST', { seconds: -1 })), 400, 'invalid_request', 'seconds');
      await expectErrorResponse(await w.raw('/_sim/clock/advance', jsonInit('POST', { to: 'yesterday' })), 400, 'invalid_request', 'to');
      await expectErrorResponse(await w.raw('/_sim/clock/advance', jsonInit('POST', { to: '2025-01-01T00:00:00Z' })), 400, 'invalid_request', 'to');
    });

    it('moves the clock by seconds or to an instant', async () => {
      const w = await open();
      const bySeconds = await w.raw('/_sim/clock/advance', jsonInit('POST', { seconds: 90 }));
      expect(await bySeconds.json()).toEqual({ now: '2026-01-01T00:01:30.000Z' });
      const toInstant = await w.raw('/_sim/clock/advance', jsonInit('POST', { to: '2026-02-01T12:00:00Z' }));
      expect(await toInstant.json()).toEqual({ now: '2026-02-01T12:00:00.000Z' });
      const same = await w.raw('/_sim/clock/advance', jsonInit('POST', { to: '2026-02-01T12:00:00.000Z' }));
      expect(same.status).toBe(200);
      expect((await w.sim.getClock()).now).toBe('2026-02-01T12:00:00.000Z');
    });
  });

  describe('GET /_sim/events', () => {
    it.each(['0', 'abc', '1001', '-1', '1.5'])('answers limit=%s with 400 invalid_request on limit (no clamping)', async (limit) => {
      const w = await open();
      await expectErrorResponse(await w.raw(`/_sim/events?limit=${limit}`), 400, 'invalid_request', 'limit');
    });

    it('answers after=-1 or after=abc with 400 invalid_request on after', async () => {
      const w = await open();
      await expectErrorResponse(await w.raw('/_sim/events?after=-1'), 400, 'invalid_request', 'after');
      await expectErrorResponse(await w.raw('/_sim/events?after=abc'), 400, 'invalid_request', 'after');
    });

    it('answers an unknown query parameter with 400 invalid_request naming it', async () => {
      const w = await open();
      await expectErrorResponse(await w.raw('/_sim/events?cursor=x'), 400, 'invalid_request', 'cursor');
    });

    it('lists events in order, seq from 1 without gaps', async () => {
      const w = await open();
      for (const name of ['alice', 'bob', 'carol']) await w.sim.createAgent({ name });
      const { api_key } = await w.sim.createAgent({ name: 'dave' });
      await w.agent(api_key).identity.updateProfile({ bio: 'hi' });
      const page = (await (await w.raw('/_sim/events?limit=1000')).json()) as EventPage;
      expect(page.has_more).toBe(false);
      expect(page.events.map((event) => event.seq)).toEqual(page.events.map((_, index) => index + 1));
      expect(page.events.length).toBeGreaterThanOrEqual(9);
      expect(page.events.filter((event) => event.type === 'agent.created').map((event) => event.data.handle)).toEqual(['alice.agents.test', 'bob.agents.test', 'carol.agents.test', 'dave.agents.test']);
      expect(page.events.at(-1)).toMatchObject({ type: 'agent.updated' });
      const times = page.events.map((event) => event.at);
      expect([...times].sort()).toEqual(times);
    });

    it('starts after `after` and pages with has_more', async () => {
      const w = await open();
      for (const name of ['alice', 'bob', 'carol']) await w.sim.createAgent({ name });
      const all = ((await (await w.raw('/_sim/events')).json()) as EventPage).events;
      expect(all.length).toBeGreaterThanOrEqual(3);

      const tail = (await (await w.raw('/_sim/events?after=2')).json()) as EventPage;
      expect(tail.events).toEqual(all.slice(2));

      const walked: number[] = [];
      let after = 0;
      for (let pages = 0; pages < 100; pages++) {
        const page = (await (await w.raw(`/_sim/events?after=${after}&limit=2`)).json()) as EventPage;
        expect(page.events.length).toBeLessThanOrEqual(2);
        walked.push(...page.events.map((event) => event.seq));
        if (!page.has_more) break;
        expect(page.events).toHaveLength(2);
        after = page.events.at(-1)!.seq;
      }
      expect(walked).toEqual(all.map((event) => event.seq));

      const end = (await (await w.raw(`/_sim/events?after=${all.length}`)).json()) as EventPage;
      expect(end).toEqual({ events: [], has_more: false });
    });
  });
});

describe('GET /openapi.json over a real socket', () => {
  it('names the listen address as its server', async () => {
    const w = await openRawWorld('http');
    try {
      const doc = (await (await w.raw('/openapi.json')).json()) as { servers: Array<{ url: string }> };
      expect(w.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(doc.servers).toEqual([{ url: w.baseUrl }]);
    } finally {
      await w.close();
    }
  });
});
