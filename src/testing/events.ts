import type { EventData, LoggedEventType } from '../core/events/events.schema.js';

/**
 * One event of the runtime's ordered log, as `GET /_sim/events` answers it. For a type of the
 * event catalog (`EventRecord<'sms.status_changed'>`), `data` is typed by that type's schema.
 */
export interface EventRecord<T extends string = string> {
  seq: number;
  type: T;
  agent_id: string | null;
  at: string;
  data: T extends LoggedEventType ? EventData<T> : Record<string, unknown>;
}

export type { EventType, LoggedEventType } from '../core/events/events.schema.js';
