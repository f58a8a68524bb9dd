import type { RouteDefinition } from './api/route.js';
import type { AdvanceClockBody, ClockState, EventPage, EventsQuery, RuntimeSnapshot } from './control/control.schema.js';
import { controlRoutes } from './control/control.routes.js';
import type { CreateAgentBody, CreatedAgent, CredentialList, DidDocument, Profile, PublicProfile, UpdateProfileBody } from './identity/identity.schema.js';
import { identityRoutes } from './identity/identity.routes.js';

/** Per-call options. */
export interface CallOptions {
  /** Sent as the `Idempotency-Key` header on POST requests. */
  idempotencyKey?: string;
}

/** Inputs of one call in transport-neutral form. */
export interface CallInput {
  params?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
}

/**
 * Carries one call to an implementation of the API: in-process, through `runtime.fetch`, or over
 * HTTP. Resolves with the response body; rejects with `ApiError` exactly as the HTTP shim answers.
 */
export type Transport = (route: RouteDefinition, input: CallInput, options?: CallOptions) => Promise<unknown>;

/**
 * One method per endpoint; each takes and returns exactly the JSON bodies of SPEC.md and
 * DECISIONS.md and throws `ApiError` with the status and code the HTTP API would send.
 */
export interface AgentClient {
  /** `GET /v1/agent` */
  getProfile(): Promise<Profile>;
  /** `PATCH /v1/agent` */
  updateProfile(body: UpdateProfileBody): Promise<Profile>;
  /** `GET /v1/agent/credentials` */
  listCredentials(): Promise<CredentialList>;
  /** `GET /v1/agent/{handle}` (public) */
  getPublicProfile(handle: string): Promise<PublicProfile>;
  /** `GET /.well-known/did.json` (public) */
  getDidDocument(): Promise<DidDocument>;
}

/** The simulation control plane of DECISIONS.md as methods. */
export interface SimClient {
  /** `POST /_sim/agents` */
  createAgent(body: CreateAgentBody, options?: CallOptions): Promise<CreatedAgent>;
  /** `GET /_sim/clock` */
  getClock(): Promise<ClockState>;
  /** `POST /_sim/clock/advance` */
  advanceClock(body: AdvanceClockBody): Promise<ClockState>;
  /** `GET /_sim/events` */
  listEvents(query?: Partial<EventsQuery>): Promise<EventPage>;
  /** `GET /_sim/snapshot` */
  snapshot(): Promise<RuntimeSnapshot>;
  /** `POST /_sim/restore` */
  restore(snapshot: RuntimeSnapshot): Promise<void>;
}

/** A transport call whose result type comes from the route's response schema. */
function typedCall(transport: Transport) {
  return <T>(route: RouteDefinition<any, any, any, T>, input: CallInput = {}, options?: CallOptions): Promise<T> =>
    transport(route as RouteDefinition, input, options) as Promise<T>;
}

/** Builds an {@link AgentClient} over a transport. */
export function createAgentClient(transport: Transport): AgentClient {
  const call = typedCall(transport);
  return {
    getProfile: () => call(identityRoutes.getProfile),
    updateProfile: (body) => call(identityRoutes.updateProfile, { body }),
    listCredentials: () => call(identityRoutes.listCredentials),
    getPublicProfile: (handle) => call(identityRoutes.getPublicProfile, { params: { handle } }),
    getDidDocument: () => call(identityRoutes.didDocument),
  };
}

/** Builds a {@link SimClient} over a transport. */
export function createSimClient(transport: Transport): SimClient {
  const call = typedCall(transport);
  return {
    createAgent: (body, options) => call(controlRoutes.createAgent, { body }, options),
    getClock: () => call(controlRoutes.getClock),
    advanceClock: (body) => call(controlRoutes.advanceClock, { body }),
    listEvents: (query = {}) => call(controlRoutes.listEvents, { query }),
    snapshot: () => call(controlRoutes.snapshot),
    restore: async (snapshot) => void (await call(controlRoutes.restore, { body: snapshot })),
  };
}
