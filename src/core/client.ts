import { buildClient, type ClientOf } from './api/route-client.js';
import type { Transport } from './api/transport.js';
import { AGENT_ROUTE_TABLES, SIM_ROUTE_TABLES } from './routes.js';

export type { CallInput, CallOptions, Transport } from './api/transport.js';

type AgentTables = typeof AGENT_ROUTE_TABLES;
type UnionToIntersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void ? I : never;
type SimTables = UnionToIntersection<(typeof SIM_ROUTE_TABLES)[number]>;

/**
 * The API as methods, derived from the route tables: one namespace per area and one method per
 * endpoint, named by the route id (`wallet.send` is `client.wallet.send(body, options)`). Each
 * takes and returns exactly the JSON bodies of SPEC.md and DECISIONS.md and throws `ApiError` with
 * the status and code the HTTP API would send.
 */
export type AgentClient = { readonly [Area in keyof AgentTables]: ClientOf<AgentTables[Area]> };

/** Builds an {@link AgentClient} over a transport. */
export function createAgentClient(transport: Transport): AgentClient {
  const client: Record<string, unknown> = {};
  for (const [area, table] of Object.entries(AGENT_ROUTE_TABLES)) client[area] = buildClient(table, transport);
  return client as AgentClient;
}

/** The simulation control plane of DECISIONS.md as flat methods named by route id (`sim.fundWallet` is `fundWallet`). */
export interface SimClient extends ClientOf<SimTables> {}

/** Builds a {@link SimClient} over a transport. */
export function createSimClient(transport: Transport): SimClient {
  return buildClient(Object.assign({}, ...SIM_ROUTE_TABLES) as SimTables, transport);
}
