import type { z } from 'zod';
import { defineRoute } from '../../core/api/route.js';
import { AdminAgent, AdminAgentPage, AdminAgentParams, AdminAgentsQuery, AdminKeyParams, CreatedKey, RotateKeyBody } from '../../core/identity/admin.schema.js';
import { CreatedAgent } from '../../core/identity/identity.schema.js';
import { SimCreateAgentBody } from '../agent-creation.js';

/** Body of `POST /admin/v1/agents`: the simulation's creation body without opening balances (the admin API never creates money). */
export const AdminCreateAgentBody = SimCreateAgentBody.omit({ balances: true });
export type AdminCreateAgentBody = z.infer<typeof AdminCreateAgentBody>;

/** Answer of `POST /admin/v1/agents`: the new agent's key, shown once, with its prefix. */
export const AdminCreatedAgent = CreatedAgent.extend({ key_prefix: CreatedKey.shape.key_prefix });

/**
 * The operator's API of a live service (DECISIONS.md, "Operating a live service"), behind the
 * admin token: agents, their status and their keys. One entry per route; it lives in the runtime
 * because creating an agent takes every area's creation fields.
 */
export const adminRoutes = {
  /** Creates an agent; its API key is shown once. `POST /admin/v1/agents` */
  createAgent: defineRoute({
    id: 'admin.createAgent',
    method: 'POST',
    path: '/admin/v1/agents',
    auth: 'admin',
    tag: 'admin',
    status: 201,
    summary: 'Creates an agent; its API key is shown once.',
    body: AdminCreateAgentBody,
    response: AdminCreatedAgent,
  }),
  /** Lists agents, newest first. `GET /admin/v1/agents` */
  listAgents: defineRoute({
    id: 'admin.listAgents',
    method: 'GET',
    path: '/admin/v1/agents',
    auth: 'admin',
    tag: 'admin',
    status: 200,
    summary: 'Lists agents, newest first.',
    query: AdminAgentsQuery,
    response: AdminAgentPage,
  }),
  /** One agent with its status and keys (never a key itself). `GET /admin/v1/agents/{agent_id}` */
  getAgent: defineRoute({
    id: 'admin.getAgent',
    method: 'GET',
    path: '/admin/v1/agents/{agent_id}',
    auth: 'admin',
    tag: 'admin',
    status: 200,
    summary: 'One agent with its status and keys (never a key itself).',
    params: AdminAgentParams,
    response: AdminAgent,
  }),
  /** Suspends an agent: its requests answer 403 agent_suspended. `POST /admin/v1/agents/{agent_id}/suspend` */
  suspendAgent: defineRoute({
    id: 'admin.suspendAgent',
    method: 'POST',
    path: '/admin/v1/agents/{agent_id}/suspend',
    auth: 'admin',
    tag: 'admin',
    status: 200,
    summary: 'Suspends an agent: its requests answer 403 agent_suspended.',
    params: AdminAgentParams,
    response: AdminAgent,
  }),
  /** Resumes a suspended agent. `POST /admin/v1/agents/{agent_id}/resume` */
  resumeAgent: defineRoute({
    id: 'admin.resumeAgent',
    method: 'POST',
    path: '/admin/v1/agents/{agent_id}/resume',
    auth: 'admin',
    tag: 'admin',
    status: 200,
    summary: 'Resumes a suspended agent.',
    params: AdminAgentParams,
    response: AdminAgent,
  }),
  /** Makes a new API key, shown once; the other keys keep working for grace_seconds. `POST /admin/v1/agents/{agent_id}/keys` */
  createKey: defineRoute({
    id: 'admin.createKey',
    method: 'POST',
    path: '/admin/v1/agents/{agent_id}/keys',
    auth: 'admin',
    tag: 'admin',
    status: 201,
    summary: 'Makes a new API key, shown once; the other keys keep working for grace_seconds.',
    params: AdminAgentParams,
    body: RotateKeyBody,
    response: CreatedKey,
  }),
  /** Revokes a key at once, grace or not. `DELETE /admin/v1/agents/{agent_id}/keys/{key_prefix}` */
  revokeKey: defineRoute({
    id: 'admin.revokeKey',
    method: 'DELETE',
    path: '/admin/v1/agents/{agent_id}/keys/{key_prefix}',
    auth: 'admin',
    tag: 'admin',
    status: 204,
    summary: 'Revokes a key at once, grace or not.',
    params: AdminKeyParams,
  }),
};
