import { buildClient, type ClientOf } from '../core/api/route-client.js';
import type { Transport } from '../core/api/transport.js';
import { AREAS, type Area, type UnionToIntersection } from './areas/index.js';
import { controlRoutes } from './control.routes.js';
import { adminRoutes } from './admin/admin.routes.js';

export type { CallInput, CallOptions, Transport } from '../core/api/transport.js';

type SimTables = UnionToIntersection<typeof controlRoutes | (Area extends infer A ? (A extends { simRoutes?: infer S } ? NonNullable<S> : never) : never)>;

/** The areas that have agent-facing routes, by name. */
type AgentArea = Area extends infer A ? (A extends { routes?: infer R } ? ([NonNullable<R>] extends [never] ? never : A) : never) : never;

/** Every agent-facing route table by area name (`AGENT_ROUTE_TABLES.wallet.send`), derived from `AREAS`. */
export const AGENT_ROUTE_TABLES = Object.fromEntries(AREAS.flatMap((area) => ('routes' in area && area.routes ? [[area.name, area.routes]] : []))) as {
  readonly [A in AgentArea as A['name']]: NonNullable<A['routes']>;
};

/** Every control-plane route table (`/_sim`): the runtime's own, then each area's. */
export const SIM_ROUTE_TABLES = [controlRoutes, ...AREAS.flatMap((area) => (area.simRoutes ? [area.simRoutes] : []))] as const;

/**
 * The API as methods, derived from the areas' route tables: one namespace per area and one method
 * per endpoint, named by the route id (`wallet.send` is `client.wallet.send(body, options)`). Each
 * takes and returns exactly the JSON bodies of SPEC.md and DECISIONS.md and throws `ApiError` with
 * the status and code the HTTP API would send.
 */
export type AgentClient = { readonly [A in AgentArea as A['name']]: ClientOf<NonNullable<A['routes']>> };

/** Builds an {@link AgentClient} over a transport. */
export function createAgentClient(transport: Transport): AgentClient {
  return Object.fromEntries(Object.entries(AGENT_ROUTE_TABLES).map(([name, table]) => [name, buildClient(table, transport)])) as AgentClient;
}

/** The simulation control plane of DECISIONS.md as flat methods named by route id (`sim.fundWallet` is `fundWallet`). */
export interface SimClient extends ClientOf<SimTables> {}

/** Builds a {@link SimClient} over a transport. */
export function createSimClient(transport: Transport): SimClient {
  return buildClient(Object.assign({}, ...SIM_ROUTE_TABLES) as SimTables, transport);
}

/** The operator's API (`/admin/v1`) route table. */
export const ADMIN_ROUTE_TABLE = adminRoutes;

/** The operator's API of a live service as flat methods named by route id (`admin.suspendAgent` is `suspendAgent`). */
export interface AdminClient extends ClientOf<typeof adminRoutes> {}

/** Builds an {@link AdminClient} over a transport. */
export function createAdminClient(transport: Transport): AdminClient {
  return buildClient(adminRoutes, transport);
}
