import { defineRoute } from '../api/route.js';
import { AgentIdParams, AgentNameParams, Policy, PolicyAnswer } from './policy.schema.js';

/** The agent's own view of its policy. */
export const policyRoutes = {
  /** The calling agent's policy: the guardrails its operator set (`{policy: null}` when none). `GET /v1/agent/policy` */
  get: defineRoute({
    id: 'policy.get',
    method: 'GET',
    path: '/v1/agent/policy',
    auth: 'agent',
    tag: 'policy',
    status: 200,
    summary: "The calling agent's policy: the guardrails its operator set (`{policy: null}` when none).",
    response: PolicyAnswer,
  }),
};

/**
 * The operator's side: the simulation control plane by agent name (`/_sim/agents/{name}/policy`)
 * and the live admin API by agent id (`/admin/v1/agents/{agent_id}/policy`), both behind the admin
 * token when one is configured.
 */
export const policySimRoutes = {
  /** Sets an agent's policy, replacing the whole document; it applies from the next request. `PUT /_sim/agents/{name}/policy` */
  setAgentPolicy: defineRoute({
    id: 'sim.setAgentPolicy',
    method: 'PUT',
    path: '/_sim/agents/{name}/policy',
    auth: 'admin',
    tag: 'simulation',
    status: 200,
    summary: "Sets an agent's policy, replacing the whole document; it applies from the next request.",
    params: AgentNameParams,
    body: Policy,
    response: PolicyAnswer,
  }),
  /** An agent's policy (`{policy: null}` when none). `GET /_sim/agents/{name}/policy` */
  getAgentPolicy: defineRoute({
    id: 'sim.getAgentPolicy',
    method: 'GET',
    path: '/_sim/agents/{name}/policy',
    auth: 'admin',
    tag: 'simulation',
    status: 200,
    summary: "An agent's policy (`{policy: null}` when none).",
    params: AgentNameParams,
    response: PolicyAnswer,
  }),
  /** Removes an agent's policy; the day's usage stays counted. `DELETE /_sim/agents/{name}/policy` */
  removeAgentPolicy: defineRoute({
    id: 'sim.removeAgentPolicy',
    method: 'DELETE',
    path: '/_sim/agents/{name}/policy',
    auth: 'admin',
    tag: 'simulation',
    status: 204,
    summary: "Removes an agent's policy; the day's usage stays counted.",
    params: AgentNameParams,
  }),
  /** Sets an agent's policy, replacing the whole document; it applies from the next request. `PUT /admin/v1/agents/{agent_id}/policy` */
  adminSetAgentPolicy: defineRoute({
    id: 'admin.setAgentPolicy',
    method: 'PUT',
    path: '/admin/v1/agents/{agent_id}/policy',
    auth: 'admin',
    tag: 'admin',
    status: 200,
    summary: "Sets an agent's policy, replacing the whole document; it applies from the next request.",
    params: AgentIdParams,
    body: Policy,
    response: PolicyAnswer,
  }),
  /** An agent's policy (`{policy: null}` when none). `GET /admin/v1/agents/{agent_id}/policy` */
  adminGetAgentPolicy: defineRoute({
    id: 'admin.getAgentPolicy',
    method: 'GET',
    path: '/admin/v1/agents/{agent_id}/policy',
    auth: 'admin',
    tag: 'admin',
    status: 200,
    summary: "An agent's policy (`{policy: null}` when none).",
    params: AgentIdParams,
    response: PolicyAnswer,
  }),
  /** Removes an agent's policy; the day's usage stays counted. `DELETE /admin/v1/agents/{agent_id}/policy` */
  adminRemoveAgentPolicy: defineRoute({
    id: 'admin.removeAgentPolicy',
    method: 'DELETE',
    path: '/admin/v1/agents/{agent_id}/policy',
    auth: 'admin',
    tag: 'admin',
    status: 204,
    summary: "Removes an agent's policy; the day's usage stays counted.",
    params: AgentIdParams,
  }),
};
