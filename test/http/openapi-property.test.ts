/**
 * Requests generated from /openapi.json itself (fast-check): the server accepts every request the
 * document calls valid (never a 400 invalid_request) and refuses every request it calls invalid
 * with 400 and a code the operation documents. Together with the recorder of the API tests
 * (test/support/openapi-recorder.ts) this keeps the document and the code in step both ways.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentAjv } from '../support/openapi-recorder.js';
import { invalidOf, validOf } from '../support/schema-arbitrary.js';
import { bearer, openRawWorld, type TestAgent, type World } from '../support/transports.js';

type Json = Record<string, any>;

/** Operations whose whole input is the document's schema (no ids of earlier resources, no outside fetches). */
const BODY_OPERATIONS: Array<[method: string, path: string]> = [
  ['PATCH', '/v1/agent'],
  ['POST', '/v1/memory'],
  ['POST', '/v1/memory/search'],
  ['POST', '/v1/wallet/send'],
  ['POST', '/v1/wallet/invoices'],
  ['POST', '/v1/wallet/cards'],
  ['POST', '/v1/email/send'],
  ['POST', '/v1/phone/sms'],
  ['POST', '/_sim/agents'],
  ['POST', '/_sim/wallet/fund'],
];

const QUERY_OPERATIONS: string[] = ['/v1/wallet/transactions', '/v1/email/messages', '/v1/phone/sms', '/v1/phone/calls', '/v1/memory/files', '/_sim/events', '/v1/webhooks'];

const RUNS = 20;

describe('requests generated from /openapi.json', () => {
  let w: World;
  let doc: Json;
  let alice: TestAgent;
  const ajv = documentAjv();

  beforeAll(async () => {
    w = await openRawWorld('fetch');
    alice = await w.newAgent('alice', { balances: { usd: '1000000', usdc: '1000000', eth: '1000', sol: '1000', eur: '1000000' } });
    await w.newAgent('bob');
    doc = (await (await w.raw('/openapi.json')).json()) as Json;
  });
  afterAll(() => w.close());

  /** The documented codes of one status of an operation. */
  const codesOf = (operation: Json, status: number): string[] => operation.responses[String(status)]?.content?.['application/json']?.schema?.properties?.error?.properties?.code?.enum ?? [];

  const send = (method: string, path: string, body?: unknown) =>
    w.raw(path, {
      method,
      headers: { ...bearer(alice.api_key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  describe.each(BODY_OPERATIONS)('%s %s', (method, path) => {
    it('accepts every body the document calls valid', async () => {
      const operation = doc.paths[path][method.toLowerCase()] as Json;
      const schema = operation.requestBody.content['application/json'].schema as Json;
      const validate = ajv.compile(schema);
      await fc.assert(
        fc.asyncProperty(validOf(schema, validate), async (body) => {
          const response = await send(method, path, body);
          const text = await response.text();
          expect(operation.responses[String(response.status)], `${response.status} ${text}`).toBeDefined();
          if (response.status >= 400) {
            const code = (JSON.parse(text) as { error: { code: string } }).error.code;
            expect(code, `${JSON.stringify(body)} -> ${text}`).not.toBe('invalid_request');
            expect(codesOf(operation, response.status)).toContain(code);
          }
        }),
        { numRuns: RUNS, seed: 13 },
      );
    });

    it('refuses every body the document calls invalid with 400 and a documented code', async () => {
      const operation = doc.paths[path][method.toLowerCase()] as Json;
      const schema = operation.requestBody.content['application/json'].schema as Json;
      const validate = ajv.compile(schema);
      await fc.assert(
        fc.asyncProperty(invalidOf(schema, validate), async ({ value, fault }) => {
          const response = await send(method, path, value);
          const text = await response.text();
          expect(response.status, `${fault}: ${JSON.stringify(value)} -> ${text}`).toBe(400);
          expect(codesOf(operation, 400)).toContain((JSON.parse(text) as { error: { code: string } }).error.code);
        }),
        { numRuns: RUNS, seed: 13 },
      );
    });
  });

  describe.each(QUERY_OPERATIONS)('GET %s', (path) => {
    it('accepts every query the document calls valid, and refuses an out-of-range or unknown one with 400', async () => {
      const operation = doc.paths[path].get as Json;
      // Cursors are opaque: only one the service handed out is valid, so none is drawn.
      const parameters = (operation.parameters as Json[]).filter((p) => p.in === 'query' && p.name !== 'cursor');
      const schema: Json = { type: 'object', additionalProperties: false, properties: Object.fromEntries(parameters.map((p) => [p.name, p.schema])) };
      const validate = ajv.compile(schema);
      await fc.assert(
        fc.asyncProperty(validOf(schema, validate), async (query) => {
          const search = new URLSearchParams(Object.entries(query as Record<string, unknown>).map(([k, v]): [string, string] => [k, String(v)]));
          const response = await send('GET', `${path}?${search}`);
          expect(response.status, `${search} -> ${await response.clone().text()}`).toBe(200);
        }),
        { numRuns: RUNS, seed: 13 },
      );
      const limit = parameters.find((p) => p.name === 'limit');
      if (limit) {
        for (const bad of [String(limit.schema.maximum + 1), String(limit.schema.minimum - 1), 'abc', '1.5']) {
          const response = await send('GET', `${path}?limit=${bad}`);
          expect(response.status, `limit=${bad}`).toBe(400);
        }
      }
      expect((await send('GET', `${path}?zz_unknown=1`)).status).toBe(400);
    });
  });
});
