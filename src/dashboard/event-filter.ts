import { LOGGED_EVENT_TYPES } from '../core/events/events.schema.js';
import type { ServiceEvent } from '../core/ports/event-log.js';

/** Which events a view shows: a type (exact, or a prefix ending in `.` or `*`) and an agent id. */
export interface EventFilter {
  type?: string | undefined;
  agentId?: string | undefined;
}

/** Whether `event` passes `filter`. `sms.` and `sms.*` take every `sms.…` type; `sms` alone does too. */
export function matchesFilter(event: ServiceEvent, filter: EventFilter): boolean {
  if (filter.agentId !== undefined && event.agent_id !== filter.agentId) return false;
  const type = filter.type?.trim();
  if (!type) return true;
  if (type.endsWith('*')) return event.type.startsWith(type.slice(0, -1));
  if (type.endsWith('.')) return event.type.startsWith(type);
  return event.type === type || event.type.startsWith(`${type}.`);
}

/**
 * What the type filter offers, from the event catalog: each area's prefix (`sms.`, `wallet.`, ...)
 * in catalog order, then every logged type.
 */
export const TYPE_FILTER_CHOICES: readonly string[] = [...new Set(LOGGED_EVENT_TYPES.map((type) => `${areaOf(type)}.`)), ...LOGGED_EVENT_TYPES];

/** The area an event belongs to (its type's first word: `sms`, `call`, `wallet`, ...), which live sections listen for. */
export function areaOf(type: string): string {
  const dot = type.indexOf('.');
  return dot < 0 ? type : type.slice(0, dot);
}
