import { bindRoute, type BoundRoute } from '../core/api/route.js';
import { controlRoutes as routes } from './control.routes.js';
import type { SimControl } from './sim-control.js';
import { validateSnapshotRows } from './snapshot-validation.js';

/** Binds the `/_sim` routes to the control plane. */
export function controlHandlers(sim: SimControl): BoundRoute[] {
  return [
    bindRoute(routes.createAgent, (_context, { body }) => sim.createAgent(body)),
    bindRoute(routes.getClock, () => sim.worldClock()),
    bindRoute(routes.advanceClock, (_context, { body }) => sim.advance(body)),
    bindRoute(routes.listEvents, (_context, { query }) => sim.events(query.after, query.limit)),
    bindRoute(routes.snapshot, () => sim.snapshot()),
    bindRoute(routes.restore, async (_context, { body }) => {
      validateSnapshotRows(body.store);
      await sim.restore(body);
      return undefined;
    }),
  ];
}
