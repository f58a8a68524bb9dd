import type { EventRecord } from './events.js';

/** Options of `waitFor`. */
export interface WaitForOptions {
  /** Service time to wait at most, in seconds (default 3600). */
  maxSeconds?: number;
  /** Service time of one step of the clock, in seconds (default 1). */
  stepSeconds?: number;
}

/** What `waitFor` needs from a world. */
export interface EventSource {
  /** Events with `seq` greater than `after`, oldest first, at most `limit`. */
  events(after: number, limit: number): Promise<{ events: EventRecord[]; has_more: boolean }>;
  /** Moves the simulated clock forward, running what falls due. */
  advance(seconds: number): Promise<unknown>;
}

const PAGE = 1000;
const SHOWN = 20;

/** The sequence number of the newest event (0 when there is none). */
export async function lastSeq(source: EventSource, from = 0): Promise<number> {
  let after = from;
  for (;;) {
    const page = await source.events(after, PAGE);
    after = page.events.at(-1)?.seq ?? after;
    if (!page.has_more) return after;
  }
}

/** One event on one line: `#12 2026-01-01T00:00:04.000Z wallet.transaction.confirmed agent=agt_1 {"id":...}`. */
export function describeEvent(event: EventRecord): string {
  const data = JSON.stringify(event.data);
  return `#${event.seq} ${event.at} ${event.type}${event.agent_id ? ` agent=${event.agent_id}` : ''} ${data.length > 240 ? `${data.slice(0, 237)}...` : data}`;
}

/** The last events of the log, readable, for an error message. */
async function lastEvents(source: EventSource, newest: number): Promise<string> {
  const { events } = await source.events(Math.max(0, newest - SHOWN), SHOWN);
  if (events.length === 0) return '  (the event log is empty)';
  return events.map((event) => `  ${describeEvent(event)}`).join('\n');
}

/**
 * Moves the simulated clock in steps until an event of `type` appended after the call satisfies
 * `predicate`, and answers it (the first such event, in log order).
 * @throws RangeError for a bad maxSeconds or stepSeconds
 * @throws Error when `maxSeconds` of service time pass without one, listing the last 20 events
 */
export async function waitForEvent(source: EventSource, type: string, predicate: ((event: EventRecord) => boolean) | undefined, options: WaitForOptions = {}): Promise<EventRecord> {
  const maxSeconds = options.maxSeconds ?? 3600;
  const step = options.stepSeconds ?? 1;
  if (!(maxSeconds >= 0 && Number.isFinite(maxSeconds))) throw new RangeError(`maxSeconds must be a finite number >= 0, got ${maxSeconds}`);
  if (!(step > 0 && Number.isFinite(step))) throw new RangeError(`stepSeconds must be a finite number > 0, got ${step}`);
  let seen = await lastSeq(source);
  const match = async (): Promise<EventRecord | undefined> => {
    for (;;) {
      const page = await source.events(seen, PAGE);
      for (const event of page.events) {
        seen = event.seq;
        if (event.type === type && (!predicate || predicate(event))) return event;
      }
      if (!page.has_more) return undefined;
    }
  };
  let waited = 0;
  for (;;) {
    const found = await match();
    if (found) return found;
    if (waited >= maxSeconds) break;
    const move = Math.min(step, maxSeconds - waited);
    await source.advance(move);
    waited += move;
  }
  throw new Error(`waitFor("${type}"): no matching event within ${maxSeconds} s of service time; the last events were:\n${await lastEvents(source, seen)}`);
}
