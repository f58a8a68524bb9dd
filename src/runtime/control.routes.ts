import { z } from 'zod';
import { defineRoute } from '../core/api/route.js';
import { CreatedAgent } from '../core/identity/identity.schema.js';
import { AdvanceClockBody, ClockState, EventPage, EventsQuery, RuntimeSnapshot } from '../core/control/control.schema.js';
import { SimCreateAgentBody } from './agent-creation.js';

/**
 * The runtime's own control plane of DECISIONS.md (`/_sim`: agents, clock, events, snapshots);
 * areas add theirs as `simRoutes`. It lives in the runtime because creating an agent takes every
 * area's creation fields.
 */
export const controlRoutes = {
  /** Creates an agent; the API key is shown once. `POST /_sim/agents` */
  createAgent: defineRoute({
    id: 'sim.createAgent',
    method: 'POST',
    path: '/_sim/agents',
    auth: 'admin',
    tag: 'simulation',
    status: 201,
    summary: 'Creates an agent; the API key is shown once.',
    body: SimCreateAgentBody,
    response: CreatedAgent,
  }),
  /** The service time. `GET /_sim/clock` */
  getClock: defineRoute({
    id: 'sim.getClock',
    method: 'GET',
    path: '/_sim/clock',
    auth: 'admin',
    tag: 'simulation',
    status: 200,
    summary: 'The service time.',
    response: ClockState,
  }),
  /** Moves simulated time forward by seconds or to an instant; everything due by then has happened, in time order. `POST /_sim/clock/advance` */
  advanceClock: defineRoute({
    id: 'sim.advanceClock',
    method: 'POST',
    path: '/_sim/clock/advance',
    auth: 'admin',
    tag: 'simulation',
    status: 200,
    summary: 'Moves simulated time forward by seconds or to an instant; everything due by then has happened, in time order.',
    body: AdvanceClockBody,
    response: ClockState,
  }),
  /** The ordered event log after a sequence number. `GET /_sim/events` */
  listEvents: defineRoute({
    id: 'sim.listEvents',
    method: 'GET',
    path: '/_sim/events',
    auth: 'admin',
    tag: 'simulation',
    status: 200,
    summary: 'The ordered event log after a sequence number.',
    query: EventsQuery,
    response: EventPage,
  }),
  /** The whole state as canonical JSON. `GET /_sim/snapshot` */
  snapshot: defineRoute({
    id: 'sim.snapshot',
    method: 'GET',
    path: '/_sim/snapshot',
    auth: 'admin',
    tag: 'simulation',
    status: 200,
    summary: 'The whole state as canonical JSON.',
    response: RuntimeSnapshot,
  }),
  /** Replaces the whole state with a snapshot. `POST /_sim/restore` */
  restore: defineRoute({
    id: 'sim.restore',
    method: 'POST',
    path: '/_sim/restore',
    auth: 'admin',
    tag: 'simulation',
    status: 204,
    summary: 'Replaces the whole state with a snapshot.',
    body: RuntimeSnapshot as z.ZodType<RuntimeSnapshot>,
    maxBodyBytes: 512 * 1024 * 1024,
  }),
};
