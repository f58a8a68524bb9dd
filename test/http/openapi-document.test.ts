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
    expect(Object.keys(send.responses).sort()).toEqual(['201', '400', '401', '402', '404', '409', '413', '415', '500']);
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
});
