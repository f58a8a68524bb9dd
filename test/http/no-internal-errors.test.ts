import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../src/index.js';
import type { RouteDefinition } from '../../src/core/api/route.js';
import { openWorld, type World } from '../support/transports.js';

/**
 * "Every bad input gets a clear error, never a 500": arbitrary JSON bodies, query values and path
 * segments, sent with a valid key to every route of every area through the HTTP shim, must answer
 * a DECISIONS.md status other than 500 with a well-formed error body.
 */
describe('every route under arbitrary input', () => {
  let world: World;
  let apiKey: string;
  let routes: RouteDefinition[];
  const internalErrors: unknown[] = [];

  beforeAll(async () => {
    world = await openWorld('fetch', { onInternalError: (error) => void internalErrors.push(error) });
    apiKey = (await world.sim.createAgent({ name: 'fuzzer', balances: { usd: '100.00', eth: '1' } })).api_key;
    await world.sim.createAgent({ name: 'other' });
    // Replacing the whole state is not an input a fuzzer should explore (it is tested on its own).
    routes = world.runtime.routes().filter((route) => route.id !== 'sim.restore');
  });
  afterAll(() => world.close());

  const segment = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('x', '..', '%', 'credentials', 'fuzzer', 'txn_1', 'msg_1', 'mem_1'));
  const json = fc.jsonValue({ maxDepth: 3 });
  const body = fc.oneof(
    json,
    fc.dictionary(fc.constantFrom('to', 'amount', 'asset', 'network', 'memo', 'subject', 'text', 'content', 'query', 'limit', 'metadata', 'name', 'balances', 'seconds', 'method', 'handle', 'attachments'), json),
  );
  const query = fc.dictionary(fc.constantFrom('limit', 'cursor', 'since', 'folder', 'asset', 'direction', 'thread_id', 'after', 'path'), fc.string({ maxLength: 30 }));

  it('never answers 500, and every error is a DECISIONS.md error body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), segment, body, query, async (pick, value, payload, parameters) => {
        const route = routes[pick % routes.length]!;
        const path = route.path.replace(/\{\w+\}/g, () => encodeURIComponent(value));
        const search = new URLSearchParams(parameters).toString();
        const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
        const response = await world.raw(`${path}${search ? `?${search}` : ''}`, {
          method: route.method,
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          ...(hasBody ? { body: JSON.stringify(payload) } : {}),
        });
        const text = await response.text();
        expect(response.status, `${route.method} ${path} answered ${response.status}: ${text.slice(0, 300)}`).not.toBe(500);
        if (response.status >= 400) {
          const error = (JSON.parse(text) as { error: { code: keyof typeof ERROR_STATUS; message: string } }).error;
          expect(ERROR_STATUS[error.code]).toBe(response.status);
          expect(typeof error.message).toBe('string');
        }
      }),
      { numRuns: 600, seed: 20261122 },
    );
    expect(internalErrors).toEqual([]);
  });
});
