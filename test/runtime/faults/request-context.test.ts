import { describe, expect, it } from 'vitest';
import type { BoundRoute, RouteDefinition } from '../../../src/core/api/route.js';
import { currentRequest, withRequestContext, type RequestContext } from '../../../src/runtime/faults/request-context.js';

/** A route whose handler answers the request context it sees after an await. */
function route(id: string): BoundRoute {
  return {
    definition: { id } as RouteDefinition,
    handle: async () => {
      await Promise.resolve();
      return currentRequest();
    },
  };
}

const call = (bound: BoundRoute, agentId: string) => bound.handle({ agentId } as never, {} as never) as Promise<RequestContext | undefined>;

describe('withRequestContext', () => {
  it('gives a request its route and agent while a fault is set', async () => {
    const [wrapped] = withRequestContext([route('wallet.send')], async () => true);
    expect(await call(wrapped!, 'agt_1')).toEqual({ route: 'wallet.send', agent_id: 'agt_1', persistenceDecided: false });
  });

  it('adds nothing while no fault is set (no AsyncLocalStorage per request)', async () => {
    const [wrapped] = withRequestContext([route('wallet.send')], async () => false);
    expect(await call(wrapped!, 'agt_1')).toBeUndefined();
  });

  it('asks whether faults are set as each request begins', async () => {
    let set = false;
    const [wrapped] = withRequestContext([route('email.send')], async () => set);
    expect(await call(wrapped!, 'agt_1')).toBeUndefined();
    set = true;
    expect((await call(wrapped!, 'agt_2'))?.agent_id).toBe('agt_2');
  });

  it('takes an answer known at once (the gate kept it) as well as one read from the store', async () => {
    let set = true;
    const [wrapped] = withRequestContext([route('wallet.send')], () => set);
    expect((await call(wrapped!, 'agt_3'))?.route).toBe('wallet.send');
    set = false;
    expect(await call(wrapped!, 'agt_3')).toBeUndefined();
  });

  it('never wraps the control plane', async () => {
    const [wrapped] = withRequestContext([route('sim.faults.create')], async () => true);
    expect(await call(wrapped!, 'agt_1')).toBeUndefined();
  });
});
