import { buildClient, type ClientOf } from '../core/api/route-client.js';
import type { Transport } from '../core/api/transport.js';
import { AREAS, type Area } from './areas/index.js';
import { controlRoutes } from './control.routes.js';

export type { CallInput, CallOptions, Transport } from '../core/api/transport.js';

type UnionToIntersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void ? I : never;
type SimTables = UnionToIntersection<typeof controlRoutes | (Area extends infer A ? (A extends { simRoutes?: infer S } ? NonNullable<S> : never) : never)>;

/** Every agent-facing route table by area name (`AGENT_ROUTE_TABLES.wallet.send`), derived from `AREAS`. */
export const AGENT_ROUTE_TABLES = Object.fromEntries(AREAS.map((area) => [area.name, area.routes])) as {
  readonly [A in Area as A['name']]: A['routes'];
};

/** Every control-plane route table (`/_sim`): the runtime's own, then each area's. */
export const SIM_ROUTE_TABLES = [controlRoutes, ...AREAS.flatMap((area) => (area.simRoutes ? [area.simRoutes] : []))] as const;

/**
 * The API as methods, derived from the areas' route tables: one namespace per area and one method
 * per endpoint, named by the route id (`wallet.send` is `client.wallet.send(body, options)`). Each
 * takes and returns exactly the JSON bodies of SPEC.md and DECISIONS.md and throws `ApiError` with
 * the status and code the HTTP API would send.
 */
export type AgentClient = { readonly [A in Area as A['name']]: ClientOf<A['routes']> };

/** Builds an {@link AgentClient} over a transport. */
export function createAgentClient(transport: Transport): AgentClient {
  return Object.fromEntries(AREAS.map((area) => [area.name, buildClient(area.routes, transport)])) as AgentClient;
}

/** The simulation control plane of DECISIONS.md as flat methods named by route id (`sim.fundWallet` is `fundWallet`). */
export interface SimClient extends ClientOf<SimTables> {}

/** Builds a {@link SimClient} over a transport. */
export function createSimClient(transport: Transport): SimClient {
  return buildClient(Object.assign({}, ...SIM_ROUTE_TABLES) as SimTables, transport);
}
