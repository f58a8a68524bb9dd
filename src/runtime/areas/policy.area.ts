import { policyHandlers } from '../../core/policy/policy.handlers.js';
import { policyRoutes, policySimRoutes } from '../../core/policy/policy.routes.js';
import { PolicyService } from '../../core/policy/policy.service.js';
import { defineArea } from './area-module.js';

/**
 * Policies: the guardrails an operator sets per agent. The service is bound before the areas
 * that enforce it (wallet, email, phone, compute, memory) resolve their services; its routes are
 * the agent's `GET /v1/agent/policy` and the operator's PUT/GET/DELETE by name and by id.
 */
export const policyArea = defineArea({
  name: 'policy',
  routes: policyRoutes,
  simRoutes: policySimRoutes,
  bind({ container }) {
    container.bind(PolicyService).toSelf();
  },
  start({ container }) {
    return policyHandlers(container.get(PolicyService));
  },
});
