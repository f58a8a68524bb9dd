import { AsyncLocalStorage } from 'node:async_hooks';
import type { BoundRoute, CallContext, RouteInput } from '../../core/api/route.js';

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
 *
 * A request carries its context only when `faultsSet()` says a fault is set as it begins. On
 * Node 20 an `AsyncLocalStorage` in use hooks every promise and async resource of the process,
 * which measured 15-25 µs of a 100-125 µs book transfer over HTTP; a world without faults does
 * not pay it. A fault set while a request is already running therefore does not see that
 * request's route or agent (nor, for `persistence.write`, the request at all). `faultsSet` answers
 * a boolean when it knows at once (the runtime's `FaultsGate` keeps the answer), so such a
 * request runs without waiting a turn, or a promise when it must ask the store.
 */
export function withRequestContext(routes: BoundRoute[], faultsSet: () => boolean | Promise<boolean>): BoundRoute[] {
  return routes.map((route) => {
    if (route.definition.id.startsWith('sim.')) return route;
    const { handle } = route;
    const id = route.definition.id;
    const run = (set: boolean, context: CallContext, input: RouteInput<unknown, unknown, unknown>) =>
      set ? requests.run({ route: id, agent_id: context.agentId ?? null, persistenceDecided: false }, () => handle(context, input)) : handle(context, input);
    return {
      ...route,
      // A handler on the check rather than an async frame around the handler: every request passes here.
      handle: (context, input) => {
        const set = faultsSet();
        return typeof set === 'boolean' ? run(set, context, input) : set.then((known) => run(known, context, input));
      },
    };
  });
}
