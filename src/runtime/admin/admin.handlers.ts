import { bindRoute, type BoundRoute } from '../../core/api/route.js';
import type { AgentAdmin } from '../../core/identity/agent-admin.service.js';
import { keyPrefixOf } from '../../core/identity/api-keys.js';
import type { SimControl } from '../sim-control.js';
import { adminRoutes as routes } from './admin.routes.js';

/** Binds the `/admin/v1` routes: creation goes through the same path as the simulation's (every area's hooks), the rest to {@link AgentAdmin}. */
export function adminHandlers(sim: SimControl, admin: AgentAdmin): BoundRoute[] {
  return [
    bindRoute(routes.createAgent, async (_context, { body }) => {
      const created = await sim.createAgent(body);
      return { ...created, key_prefix: keyPrefixOf(created.api_key) };
    }),
    bindRoute(routes.listAgents, (_context, { query }) => admin.list(query)),
    bindRoute(routes.getAgent, (_context, { params }) => admin.show(params.agent_id)),
    bindRoute(routes.suspendAgent, (_context, { params }) => admin.setSuspended(params.agent_id, true)),
    bindRoute(routes.resumeAgent, (_context, { params }) => admin.setSuspended(params.agent_id, false)),
    bindRoute(routes.createKey, (_context, { params, body }) => admin.rotate(params.agent_id, body.grace_seconds ?? 0)),
    bindRoute(routes.revokeKey, async (_context, { params }) => {
      await admin.revoke(params.agent_id, params.key_prefix);
    }),
  ];
}
