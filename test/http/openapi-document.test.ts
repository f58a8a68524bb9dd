/**
 * The document is generated from the schemas at the class level: every refinement of every route
 * schema carries a JSON Schema description of what it checks, the error table names only real
 * routes, and the document is one tools load (no boolean `items` beside `prefixItems`).
 */
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/index.js';
import { openApiDocument } from '../../src/http/openapi.js';
import { routesWithAreaErrors } from '../../src/http/operation-errors.js';
import { documentAjv } from '../support/openapi-recorder.js';

/** JSON Schema keywords a refinement's `.meta()` gives (beyond a bare description), on the schema or a parent it was cloned from. */
function describedCheck(schema: any): boolean {
  for (let current = schema; current; current = current._zod.parent) {
    const meta = z.globalRegistry.get(current);
    if (meta && Object.keys(meta).some((key) => key !== 'description')) return true;
  }
  return false;
}

/** Paths of schemas with a refinement the document would not show. */
function undescribedRefinements(schema: any, path: string, seen: Set<unknown>, out: string[]): void {
  if (!schema || seen.has(schema)) return;
  seen.add(schema);
  const def = schema._zod.def;
  const custom = (def.checks ?? []).some((check: any) => check._zod.def.check === 'custom');
  if (custom && !describedCheck(schema)) out.push(path);
  for (const key of ['innerType', 'in', 'out', 'element', 'valueType', 'keyType']) if (def[key]) undescribedRefinements(def[key], path, seen, out);
  if (def.shape) for (const [key, value] of Object.entries(def.shape)) undescribedRefinements(value, `${path}.${key}`, seen, out);
  if (def.options) (def.options as unknown[]).forEach((option, i) => undescribedRefinements(option, `${path}|${i}`, seen, out));
}

describe('the OpenAPI document, generated', () => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await createRuntime();
  });
  afterAll(() => runtime.close());

  it('describes every refinement of every route schema (no check the document does not show)', () => {
    const out: string[] = [];
    const seen = new Set<unknown>();
    for (const route of runtime.routes()) {
      for (const part of ['params', 'query', 'body'] as const) if (route[part]) undescribedRefinements(route[part], `${route.id}.${part}`, seen, out);
    }
    expect(out).toEqual([]);
  });

  it('names only real routes in its table of area errors', () => {
    const ids = new Set(runtime.routes().map((route) => route.id));
    for (const id of routesWithAreaErrors()) expect(ids, id).toContain(id);
  });

  it('compiles with ajv (every schema), with no boolean items beside prefixItems', () => {
    const doc = openApiDocument(runtime.routes(), runtime.config, { adminAccess: 'open' });
    const text = JSON.stringify(doc);
    expect(text).not.toContain('"items":false');
    const ajv = documentAjv();
    for (const methods of Object.values(doc.paths as Record<string, Record<string, any>>)) {
      for (const operation of Object.values(methods)) {
        for (const response of Object.values(operation.responses as Record<string, any>)) {
          const schema = response.content?.['application/json']?.schema;
          if (schema) expect(() => ajv.compile(schema), operation.operationId).not.toThrow();
        }
        const body = operation.requestBody?.content?.['application/json']?.schema;
        if (body) expect(() => ajv.compile(body), operation.operationId).not.toThrow();
      }
    }
    // the webhooks section (OpenAPI 3.1): one POST per delivered type, its body and headers compile too
    const webhooks = Object.entries(doc.webhooks as Record<string, any>);
    expect(webhooks.length).toBeGreaterThan(0);
    for (const [type, entry] of webhooks) {
      expect(entry.post.requestBody.content['application/json'].schema.properties.type.const, type).toBe(type);
      expect(() => ajv.compile(entry.post.requestBody.content['application/json'].schema), type).not.toThrow();
      for (const parameter of entry.post.parameters) expect(() => ajv.compile(parameter.schema), `${type} ${parameter.name}`).not.toThrow();
    }
  });

  it('documents /_sim as it is reached: open, behind the admin token, or not at all', () => {
    const security = (access: 'open' | 'token' | 'hidden') => (openApiDocument(runtime.routes(), runtime.config, { adminAccess: access }).paths as Record<string, any>)['/_sim/clock']?.get?.security;
    expect(security('open')).toEqual([{}]);
    expect(security('token')).toEqual([{ adminToken: [] }]);
    expect(security('hidden')).toBeUndefined();
  });

  it('states the rules the server enforces: patterns, formats, oneOf/anyOf, error codes, Idempotency-Key', () => {
    const doc = openApiDocument(runtime.routes(), runtime.config) as any;
    const body = (path: string, method = 'post') => doc.paths[path][method].requestBody.content['application/json'].schema;
    expect(body('/v1/wallet/send').properties.amount.pattern).toBe('^(0|[1-9][0-9]*)(\\.[0-9]+)?$');
    expect(body('/v1/wallet/invoices').properties.due_date.format).toBe('date');
    expect(body('/v1/email/send').properties.to.items.format).toBe('email');
    expect(body('/v1/email/send').anyOf.map((branch: any) => branch.required)).toEqual([['text'], ['html']]);
    expect(body('/_sim/clock/advance').oneOf.map((branch: any) => branch.required)).toEqual([['seconds'], ['to']]);
    expect(body('/_sim/clock/advance').properties.to.format).toBe('date-time');
    expect(body('/v1/phone/calls').oneOf.map((branch: any) => branch.required)).toEqual([['script'], ['twiml_url']]);
    expect(body('/v1/phone/sms').properties.to.pattern).toBe('^\\+[1-9][0-9]{1,14}$');
    expect(body('/v1/agent', 'patch').properties.avatar_url.anyOf[0].pattern).toMatch(/^\^\(\?:\[Hh\]\[Tt\]\[Tt\]\[Pp\]\[Ss\]\):\/\//);
    const send = doc.paths['/v1/wallet/send'].post;
    expect(send.responses['402'].content['application/json'].schema.properties.error.properties.code.enum).toEqual(['insufficient_funds']);
    expect(send.responses['403'].content['application/json'].schema.properties.error.properties.code.enum.sort()).toEqual(['agent_suspended', 'policy_violation']);
    expect(Object.keys(send.responses).sort()).toEqual(['201', '400', '401', '402', '403', '404', '408', '409', '413', '415', '431', '500']);
    expect(Object.keys(doc.paths['/v1/compute/run'].post.responses)).toContain('504');
    expect(doc.paths['/v1/compute/run'].post.responses['504'].content['application/json'].schema.properties.error.properties.code.enum).toEqual(['upstream_timeout']);
    expect(send.parameters.find((p: any) => p.name === 'Idempotency-Key').schema).toEqual({ type: 'string', minLength: 1, maxLength: 255 });
    expect(Object.keys(doc.paths['/v1/compute/browser/sessions'].post.responses)).toContain('429');
    expect(Object.keys(doc.paths['/files/files/{file_id}'].get.responses['200'].content)).toEqual(['*/*']);
  });

  it('compiles into a validator that agrees with the server on a few hand-picked values', () => {
    const doc = openApiDocument(runtime.routes(), runtime.config) as any;
    const ajv = documentAjv();
    const profile = ajv.compile(doc.paths['/v1/agent'].patch.requestBody.content['application/json'].schema);
    expect(profile({ avatar_url: 'https://example.com/a.png' })).toBe(true);
    expect(profile({ avatar_url: 'http://example.com/a.png' })).toBe(false);
    expect(profile({ avatar_url: 'https://exa mple.com' })).toBe(false);
    const advance = ajv.compile(doc.paths['/_sim/clock/advance'].post.requestBody.content['application/json'].schema);
    expect(advance({ seconds: 5 })).toBe(true);
    expect(advance({ seconds: 5, to: '2030-01-01T00:00:00Z' })).toBe(false);
    expect(advance({})).toBe(false);
  });

  it('states the rules the server enforces, and the server refuses what the document calls invalid', async () => {
    const doc = openApiDocument(runtime.routes(), runtime.config) as any;
    const ajv = documentAjv();
    const bodyOf = (path: string, method: string) => ajv.compile(doc.paths[path][method].requestBody.content['application/json'].schema);
    const alice = await runtime.createAgent({ name: 'alice', balances: { usd: '100', eth: '1' } });
    const call = (routeId: string, body: unknown, query?: Record<string, string>) => runtime.dispatch({ routeId, bearer: alice.api_key, body, ...(query ? { query } : {}) });

    // fs: content is canonical Base64, paths are absolute.
    const write = bodyOf('/v1/compute/fs', 'put');
    expect(doc.paths['/v1/compute/fs'].put.requestBody.content['application/json'].schema.properties.content.contentEncoding).toBe('base64');
    expect(write({ path: '/a.txt', content: 'aGk=' })).toBe(true);
    for (const bad of [
      { path: '/a.txt', content: 'aGk' },
      { path: '/a.txt', content: 'not base64!' },
      { path: 'a.txt', content: 'aGk=' },
    ]) {
      expect(write(bad), JSON.stringify(bad)).toBe(false);
      expect((await call('compute.writeFs', bad)).status, JSON.stringify(bad)).toBe(400);
    }
    expect((await call('compute.writeFs', { path: '/a.txt', content: 'aGk=' })).status).toBe(200);
    const read = doc.paths['/v1/compute/fs/content'].get.parameters.find((p: any) => p.name === 'path').schema;
    expect(ajv.compile(read)('relative/a.txt')).toBe(false);
    expect((await call('compute.readFs', undefined, { path: 'relative/a.txt' })).status).toBe(400);

    // webhooks: events are "*" or delivered types.
    const webhook = bodyOf('/v1/webhooks', 'post');
    expect(doc.paths['/v1/webhooks'].post.requestBody.content['application/json'].schema.properties.events.items.enum).toContain('sms.status_changed');
    expect(webhook({ url: 'https://example.com/h', events: ['sms.status_changed', '*'] })).toBe(true);
    expect(webhook({ url: 'https://example.com/h', events: ['sms.nonsense'] })).toBe(false);
    expect((await call('webhooks.create', { url: 'https://example.com/h', events: ['sms.nonsense'] })).status).toBe(400);

    // wallet: each asset takes its own decimal places, and amounts are positive.
    const send = bodyOf('/v1/wallet/send', 'post');
    expect(send({ to: 'bob', amount: '1.25', asset: 'usd' })).toBe(true);
    expect(send({ to: 'bob', amount: '1.000000000000000001', asset: 'eth' })).toBe(true);
    for (const bad of [
      { to: 'alice', amount: '1.255', asset: 'usd' },
      { to: 'alice', amount: '1.0000000000000000001', asset: 'eth' },
      { to: 'alice', amount: '0.00', asset: 'usd' },
      { to: 'alice', amount: '1'.repeat(31), asset: 'usd' },
    ]) {
      expect(send(bad), JSON.stringify(bad)).toBe(false);
      const answer = await call('wallet.send', bad);
      expect(answer.status, JSON.stringify(bad)).toBe(400);
      expect((answer.body as { error: { code: string } }).error.code).toBe('invalid_amount');
    }
    expect(bodyOf('/v1/wallet/invoices', 'post')({ to: 'bob', amount: '1.5', currency: 'usdc' })).toBe(true);
    expect(bodyOf('/v1/wallet/invoices', 'post')({ to: 'bob', amount: '1.5000001', currency: 'usdc' })).toBe(false);
    const agent = bodyOf('/_sim/agents', 'post');
    expect(agent({ name: 'carol', balances: { usd: '0', sol: '1.123456789' } })).toBe(true);
    expect(agent({ name: 'carol', balances: { sol: '1.1234567891' } })).toBe(false);
  });
});
