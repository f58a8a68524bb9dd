import type { CallOptions } from '../api/transport.js';
import type { TypedCall } from '../api/typed-call.js';
import type { CreatedAgent } from '../identity/identity.schema.js';
import { controlRoutes as routes } from './control.routes.js';
import type { AdvanceClockBody, ClockState, EventPage, EventsQuery, RuntimeSnapshot, SimCreateAgentBody } from './control.schema.js';

/** The area-independent part of the control plane: agents, clock, events, snapshots. */
export interface ControlClient {
  /** `POST /_sim/agents` */
  createAgent(body: SimCreateAgentBody, options?: CallOptions): Promise<CreatedAgent>;
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

/** Builds the control-plane methods over a typed call. */
export function controlClient(call: TypedCall): ControlClient {
  return {
    createAgent: (body, options) => call(routes.createAgent, { body }, options),
    getClock: () => call(routes.getClock),
    advanceClock: (body) => call(routes.advanceClock, { body }),
    listEvents: (query = {}) => call(routes.listEvents, { query }),
    snapshot: () => call(routes.snapshot),
    restore: async (snapshot) => void (await call(routes.restore, { body: snapshot })),
  };
}
