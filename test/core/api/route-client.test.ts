import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildClient } from '../../../src/core/api/route-client.js';
import { defineRoute } from '../../../src/core/api/route.js';
import type { CallInput, CallOptions, Transport } from '../../../src/core/api/transport.js';
import { AGENT_ROUTE_TABLES, SIM_ROUTE_TABLES } from '../../../src/runtime/clients.js';

/** A transport that records what each call carried. */
function recorder(): { transport: Transport; calls: { id: string; input: CallInput; options: CallOptions | undefined }[] } {
  const calls: { id: string; input: CallInput; options: CallOptions | undefined }[] = [];
  return { calls, transport: async (route, input, options) => void calls.push({ id: route.id, input, options }) };
}

const table = {
  create: defineRoute({ id: 'toy.create', method: 'POST', path: '/v1/toys', auth: 'agent', tag: 'toy', status: 201, summary: 's', body: z.object({ name: z.string() }) }),
  list: defineRoute({ id: 'toy.list', method: 'GET', path: '/v1/toys', auth: 'agent', tag: 'toy', status: 200, summary: 's', query: z.object({ limit: z.number().optional() }) }),
  get: defineRoute({ id: 'toy.get', method: 'GET', path: '/v1/toys/{toy_id}', auth: 'agent', tag: 'toy', status: 200, summary: 's', params: z.object({ toy_id: z.string() }) }),
  move: defineRoute({
    id: 'toy.move',
    method: 'POST',
    path: '/v1/boxes/{box_id}/toys/{toy_id}',
    auth: 'agent',
    tag: 'toy',
    status: 200,
    summary: 's',
    params: z.object({ box_id: z.string(), toy_id: z.string() }),
    body: z.object({ to: z.string() }),
  }),
};

describe('buildClient', () => {
  it('passes the body and the options of a POST', async () => {
    const { transport, calls } = recorder();
    await buildClient(table, transport).create({ name: 'ball' }, { idempotencyKey: 'k1' });
    expect(calls).toEqual([{ id: 'toy.create', input: { body: { name: 'ball' } }, options: { idempotencyKey: 'k1' } }]);
  });

  it('passes an omitted query as an empty one', async () => {
    const { transport, calls } = recorder();
    const client = buildClient(table, transport);
    await client.list();
    await client.list({ limit: 5 });
    expect(calls.map((call) => call.input)).toEqual([{ query: {} }, { query: { limit: 5 } }]);
  });

  it('takes a single path parameter as a string and several as an object', async () => {
    const { transport, calls } = recorder();
    const client = buildClient(table, transport);
    await client.get('toy_1');
    await client.move({ box_id: 'box_1', toy_id: 'toy_1' }, { to: 'box_2' });
    expect(calls.map((call) => call.input)).toEqual([
      { params: { toy_id: 'toy_1' }, query: {} },
      { params: { box_id: 'box_1', toy_id: 'toy_1' }, body: { to: 'box_2' } },
    ]);
  });
});

describe('the route tables', () => {
  it('name every client method after its route id', () => {
    for (const [area, routes] of Object.entries(AGENT_ROUTE_TABLES)) {
      for (const [action, route] of Object.entries(routes)) expect(route.id).toBe(`${area}.${action}`);
    }
    for (const routes of SIM_ROUTE_TABLES) {
      for (const [action, route] of Object.entries(routes)) expect(route.id).toBe(`sim.${action}`);
    }
  });

  it('give every control-plane action one route only', () => {
    const actions = SIM_ROUTE_TABLES.flatMap((routes) => Object.keys(routes));
    expect(new Set(actions).size).toBe(actions.length);
  });
});
