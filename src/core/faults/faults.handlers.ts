import { bindRoute, type BoundRoute } from '../api/route.js';
import type { FaultService } from './fault.service.js';
import { faultsSimRoutes as routes } from './faults.routes.js';

/** Binds `/_sim/faults` to the fault service. */
export function faultsHandlers(faults: FaultService): BoundRoute[] {
  return [
    bindRoute(routes.addFault, (_context, { body }) => faults.add(body)),
    bindRoute(routes.listFaults, () => faults.list()),
    bindRoute(routes.deleteFault, async (_context, { params }) => {
      await faults.remove(params.fault_id);
      return undefined;
    }),
    bindRoute(routes.clearFaults, async () => {
      await faults.clear();
      return undefined;
    }),
  ];
}
