import { z } from 'zod';
import { exactlyOneOf, intParam, isoDateTime, timestamp } from '../shared/schemas.js';

/** Answer of the clock endpoints. */
export const ClockState = z.object({ now: timestamp });
export type ClockState = z.infer<typeof ClockState>;

/** Body of `POST /_sim/clock/advance`: exactly one of `seconds` (0 to ten years) or `to` (ISO). */
export const AdvanceClockBody = exactlyOneOf(
  z.strictObject({
    seconds: z
      .number()
      .finite()
      .min(0)
      .max(10 * 365 * 86_400)
      .optional(),
    to: isoDateTime.optional(),
  }),
  ['seconds', 'to'],
  'to',
).transform((body): { seconds: number } | { to: string } => (body.to !== undefined ? { to: body.to } : { seconds: body.seconds ?? 0 }));
export type AdvanceClockBody = z.input<typeof AdvanceClockBody>;
/** A validated clock move: by seconds or to an instant. */
export type ClockMove = z.output<typeof AdvanceClockBody>;

/** Query of `GET /_sim/events`. */
export const EventsQuery = z.strictObject({
  after: intParam(0, Number.MAX_SAFE_INTEGER).default(0),
  limit: intParam(1, 1000).default(100),
});
export type EventsQuery = z.infer<typeof EventsQuery>;

/** One event of the ordered log. */
export const EventRecord = z.object({
  seq: z.number().int(),
  type: z.string(),
  agent_id: z.string().nullable(),
  at: timestamp,
  data: z.record(z.string(), z.unknown()),
});

/** Answer of `GET /_sim/events`: oldest first; `has_more` says another page follows. */
export const EventPage = z.object({ events: z.array(EventRecord), has_more: z.boolean() });
export type EventPage = z.infer<typeof EventPage>;

/** The whole state of a runtime as JSON (`GET /_sim/snapshot`, `POST /_sim/restore`). */
export const RuntimeSnapshot = z.object({
  format: z.literal('agent-services/snapshot'),
  version: z.literal(1),
  service_domain: z.string(),
  clock: z.object({ now: timestamp }),
  random: z.string(),
  store: z.object({
    collections: z.record(
      z.string(),
      z.object({
        nextPosition: z.number().int().min(1),
        rows: z.array(z.tuple([z.string(), z.string(), z.number().int().min(1), z.unknown()])),
      }),
    ),
  }),
});
export type RuntimeSnapshot = z.infer<typeof RuntimeSnapshot>;
