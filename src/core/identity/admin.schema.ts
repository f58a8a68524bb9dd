import { z } from 'zod';
import { intParam, timestamp } from '../shared/schemas.js';

/** Path of one agent under `/admin/v1/agents/{agent_id}`. */
export const AdminAgentParams = z.strictObject({ agent_id: z.string().min(1).max(64) });

/** Path of one key under `/admin/v1/agents/{agent_id}/keys/{key_prefix}`. */
export const AdminKeyParams = z.strictObject({ agent_id: z.string().min(1).max(64), key_prefix: z.string().min(1).max(64) });

/** Query of `GET /admin/v1/agents`. */
export const AdminAgentsQuery = z.strictObject({ limit: intParam(1, 100).default(20), cursor: z.string().max(512).optional() });
export type AdminAgentsQuery = z.infer<typeof AdminAgentsQuery>;

/** Body of `POST /admin/v1/agents/{agent_id}/keys`. */
export const RotateKeyBody = z.strictObject({
  grace_seconds: z.number().int().min(0).max(31_536_000).optional().describe("How long the agent's other keys keep working, in seconds of service time (default 0: refused at once)"),
});
export type RotateKeyBody = z.infer<typeof RotateKeyBody>;

/** One key of an agent as operators see it: never the key itself. */
export const AdminKey = z.object({
  key_prefix: z.string().describe("The key's first 12 characters"),
  created_at: timestamp.nullable(),
  expires_at: timestamp.nullable().describe("When a rotation's grace ends; null while the key has no end"),
});

/** An agent as operators see it. */
export const AdminAgent = z.object({
  agent_id: z.string(),
  name: z.string(),
  handle: z.string(),
  email: z.string(),
  display_name: z.string(),
  status: z.enum(['active', 'suspended']),
  created_at: timestamp,
  keys: z.array(AdminKey),
});
export type AdminAgent = z.infer<typeof AdminAgent>;

/** Answer of `GET /admin/v1/agents`. */
export const AdminAgentPage = z.object({ agents: z.array(AdminAgent), next_cursor: z.string().nullable() });
export type AdminAgentPage = z.infer<typeof AdminAgentPage>;

/** Answer of a key rotation: the new key, shown once. */
export const CreatedKey = z.object({ api_key: z.string(), key_prefix: z.string() });
export type CreatedKey = z.infer<typeof CreatedKey>;
