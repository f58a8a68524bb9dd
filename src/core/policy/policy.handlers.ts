import { bindRoute, callerOf, type BoundRoute } from '../api/route.js';
import { policyRoutes as routes, policySimRoutes as simRoutes } from './policy.routes.js';
import type { PolicyService } from './policy.service.js';

/** Binds the policy routes (the agent's view, the control plane's and the admin API's) to the service. */
export function policyHandlers(policies: PolicyService): BoundRoute[] {
  return [
    bindRoute(routes.get, (context) => policies.show(callerOf(context))),
    bindRoute(simRoutes.setAgentPolicy, async (_context, { params, body }) => policies.set((await policies.agentNamed(params.name)).agent_id, body)),
    bindRoute(simRoutes.getAgentPolicy, async (_context, { params }) => policies.show((await policies.agentNamed(params.name)).agent_id)),
    bindRoute(simRoutes.removeAgentPolicy, async (_context, { params }) => policies.remove((await policies.agentNamed(params.name)).agent_id)),
    bindRoute(simRoutes.adminSetAgentPolicy, async (_context, { params, body }) => policies.set((await policies.agentWithId(params.agent_id)).agent_id, body)),
    bindRoute(simRoutes.adminGetAgentPolicy, async (_context, { params }) => policies.show((await policies.agentWithId(params.agent_id)).agent_id)),
    bindRoute(simRoutes.adminRemoveAgentPolicy, async (_context, { params }) => policies.remove((await policies.agentWithId(params.agent_id)).agent_id)),
  ];
}
