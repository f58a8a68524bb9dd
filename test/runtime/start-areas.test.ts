import { Container } from 'inversify';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bindRoute, defineRoute } from '../../src/core/api/route.js';
import { defineArea, type AreaContext } from '../../src/runtime/areas/area-module.js';
import { AREAS } from '../../src/runtime/areas/index.js';
import { startAreas } from '../../src/runtime/areas/start-areas.js';
import { SimCreateAgentBody } from '../../src/runtime/agent-creation.js';
import { AGENT_ROUTE_TABLES, SIM_ROUTE_TABLES } from '../../src/runtime/clients.js';

const context: AreaContext = { container: new Container(), options: {}, mode: 'simulated', seed: 0 };
const toyRoutes = {
  list: defineRoute({ id: 'toy.list', method: 'GET', path: '/v1/toys', auth: 'agent', tag: 'toy', status: 200, summary: 'Lists toys.', response: z.object({ toys: z.array(z.string()) }) }),
  get: defineRoute({ id: 'toy.get', method: 'GET', path: '/v1/toys/{toy_id}', auth: 'agent', tag: 'toy', status: 200, summary: 'One toy.', params: z.object({ toy_id: z.string() }) }),
};

describe('startAreas', () => {
  it('answers the routes an area binds when they are exactly the ones it declares', () => {
    const toy = defineArea({
      name: 'toy',
      routes: toyRoutes,
      bind() {},
      start: () => [bindRoute(toyRoutes.list, () => ({ toys: [] })), bindRoute(toyRoutes.get, () => undefined)],
    });
    expect(startAreas([toy], context).map((route) => route.definition.id)).toEqual(['toy.list', 'toy.get']);
  });

  it('refuses an area that declares a route it does not bind, naming it', () => {
    const toy = defineArea({ name: 'toy', routes: toyRoutes, bind() {}, start: () => [bindRoute(toyRoutes.list, () => ({ toys: [] }))] });
    expect(() => startAreas([toy], context)).toThrow('area toy: declared but not bound: toy.get');
  });

  it('refuses an area that binds a route it does not declare, naming it', () => {
    const toy = defineArea({
      name: 'toy',
      routes: { list: toyRoutes.list },
      bind() {},
      start: () => [bindRoute(toyRoutes.list, () => ({ toys: [] })), bindRoute(toyRoutes.get, () => undefined)],
    });
    expect(() => startAreas([toy], context)).toThrow('area toy: bound but not declared: toy.get');
  });
});

describe('what the areas declare', () => {
  it('gives one agent route table per area that has agent routes, under its name', () => {
    expect(Object.keys(AGENT_ROUTE_TABLES).sort()).toEqual(
      AREAS.filter((area) => 'routes' in area && area.routes)
        .map((area) => area.name)
        .sort(),
    );
    expect(AGENT_ROUTE_TABLES).not.toHaveProperty('faults');
  });

  it('gives the control plane the runtime table plus every area simRoutes table', () => {
    const ids = SIM_ROUTE_TABLES.flatMap((table) => Object.values(table).map((route) => route.id));
    expect(ids).toEqual(expect.arrayContaining(['sim.createAgent', 'sim.restore', 'sim.fundWallet', 'sim.emailOutbox', 'sim.phoneInbound', 'sim.webhookDeliveries', 'sim.addFault']));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('builds the agent-creation body from every area creation fields', () => {
    const parsed = SimCreateAgentBody.parse({ name: 'ada', balances: { usdc: '5.00' }, phone_country: 'GB' });
    expect(parsed).toMatchObject({ name: 'ada', balances: { usdc: '5.00' }, phone_country: 'GB' });
    expect(SimCreateAgentBody.safeParse({ name: 'ada', phone_country: 7 }).success).toBe(false);
  });
});
