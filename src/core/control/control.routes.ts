import { z } from 'zod';
import { defineRoute } from '../api/route.js';
import { CreatedAgent } from '../identity/identity.schema.js';
import { AdvanceClockBody, ClockState, EventPage, EventsQuery, RuntimeSnapshot, SimCreateAgentBody } from './control.schema.js';

/** The simulation control plane of DECISIONS.md (`/_sim`). */
export const controlRoutes = {
  createAgent: defineRoute({
    id: 'sim.createAgent', method: 'POST', path: '/_sim/agents', auth: 'admin', tag: 'simulation', status: 201,
    summary: 'Creates an agent; the API key is shown once.', body: SimCreateAgentBody, response: CreatedAgent,
  }),
  getClock: defineRoute({
    id: 'sim.getClock', method: 'GET', path: '/_sim/clock', auth: 'admin', tag: 'simulation', status: 200,
    summary: 'The service time.', response: ClockState,
  }),
  advanceClock: defineRoute({
    id: 'sim.advanceClock', method: 'POST', path: '/_sim/clock/advance', auth: 'admin', tag: 'simulation', status: 200,
    summary: 'Moves simulated time forward by seconds or to an instant; everything due by then has happened, in time order.',
    body: AdvanceClockBody, response: ClockState,
  }),
  listEvents: defineRoute({
    id: 'sim.listEvents', method: 'GET', path: '/_sim/events', auth: 'admin', tag: 'simulation', status: 200,
    summary: 'The ordered event log after a sequence number.', query: EventsQuery, response: EventPage,
  }),
  snapshot: defineRoute({
    id: 'sim.snapshot', method: 'GET', path: '/_sim/snapshot', auth: 'admin', tag: 'simulation', status: 200,
    summary: 'The whole state as canonical JSON.', response: RuntimeSnapshot,
  }),
  restore: defineRoute({
    id: 'sim.restore', method: 'POST', path: '/_sim/restore', auth: 'admin', tag: 'simulation', status: 204,
    summary: 'Replaces the whole state with a snapshot.', body: RuntimeSnapshot as z.ZodType<RuntimeSnapshot>, maxBodyBytes: 512 * 1024 * 1024,
  }),
};
