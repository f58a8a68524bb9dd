import { AsyncLocalStorage } from 'node:async_hooks';
import type { BoundRoute } from '../../core/api/route.js';

/** The API request a piece of work belongs to, as port decorators see it. */
export interface RequestContext {
  /** Route id, e.g. `wallet.send`. */
  route: string;
  /** The calling agent, or null on public routes. */
  agent_id: string | null;
  /** Whether this request's persistence fault was already decided (one draw per request). */
  persistenceDecided: boolean;
}

const requests = new AsyncLocalStorage<RequestContext>();

/** The request the current async work belongs to, if it runs on behalf of one. */
export function currentRequest(): RequestContext | undefined {
  return requests.getStore();
}

/**
 * Wraps the handler of every route that is not part of the control plane so that the work it
 * starts knows its request: faults match on `route` and `agent_id`, and `persistence.write`
 * applies only to requests (never to the control plane, so faults can always be removed).
 */
export function withRequestContext(routes: BoundRoute[]): BoundRoute[] {
  return routes.map((route) => {
    if (route.definition.id.startsWith('sim.')) return route;
    const { handle } = route;
    return {
      ...route,
      handle: (context, input) =>
        requests.run({ route: route.definition.id, agent_id: context.agentId ?? null, persistenceDecided: false }, () => handle(context, input)),
    };
  });
}
