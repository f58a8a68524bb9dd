// The JSON text of request lines, made with as little work per request as a line allows: a
// server answering tens of thousands of requests a second writes one of these for each.
import type { CompletedRequest } from './request-telemetry.js';

/**
 * Characters a JSON string may hold as they are, in ASCII (no quote, backslash, control or
 * non-ASCII character). A request id is visible ASCII and an agent id is made by the service, so
 * the test passes for nearly every value and the careful way is left for the rest.
 */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** A string as a JSON string literal in ASCII (anything else as `\uXXXX`), so that a line is ASCII whatever it holds. */
function jsonString(value: string): string {
  if (PLAIN.test(value)) return `"${value}"`;
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * `.5`, `.05`, `.123`...: the fraction of a millisecond count for each number of microseconds
 * 0-999, as a JavaScript number prints it (no trailing zero, nothing for zero), so that `ms` is
 * written without turning a double into text for every request.
 */
const FRACTIONS: readonly string[] = Array.from({ length: 1000 }, (_, micros) => (micros === 0 ? '' : String(micros / 1000).slice(1)));

/** The part of a line between the request id and `ms` for one method and status of a route. */
interface Middle {
  method: string;
  status: number;
  text: string;
}

/**
 * `,"method":"GET","route":"/v1/...","status":200,"ms":` by route, for each method and status
 * the route has answered: a route is a template and answers with a few statuses, so a line's
 * middle is found by one map lookup and a short scan, and is made once.
 */
const middles = new Map<string | null, Middle[]>();
/** Middles kept per route (methods times statuses); anything past this is made each time. */
const MAX_MIDDLES = 64;

function middleOf(method: string, route: string | null, status: number): string {
  let known = middles.get(route);
  if (!known) middles.set(route, (known = []));
  for (const middle of known) if (middle.status === status && middle.method === method) return middle.text;
  const text = `,"method":${jsonString(method)},"route":${route === null ? 'null' : jsonString(route)},"status":${status},"ms":`;
  if (known.length < MAX_MIDDLES) known.push({ method, status, text });
  return text;
}

/** `,"agent_id":"agt_...","msg":"request"}` and the newline, by agent (null: no agent). */
const ends = new Map<string | null, string>([[null, ',"agent_id":null,"msg":"request"}\n']]);
/** Agents whose end is kept; past it the map starts again (a service with more agents makes some twice). */
const MAX_ENDS = 10_000;

function endOf(agentId: string | null): string {
  let text = ends.get(agentId);
  if (text === undefined) {
    text = `,"agent_id":${jsonString(agentId!)},"msg":"request"}\n`;
    if (ends.size >= MAX_ENDS) {
      ends.clear();
      ends.set(null, ',"agent_id":null,"msg":"request"}\n');
    }
    ends.set(agentId, text);
  }
  return text;
}

/** Milliseconds with at most three decimals, as JSON (the request's `ms` is already rounded to microseconds). */
function millisecondsText(ms: number): string {
  const micros = Math.round(ms * 1000);
  // Never so for a measured time; a JSON number cannot be NaN (pino writes null too).
  if (!(micros >= 0) || micros > Number.MAX_SAFE_INTEGER) return Number.isFinite(ms) ? String(ms) : 'null';
  const whole = Math.floor(micros / 1000);
  return `${whole}${FRACTIONS[micros - whole * 1000]}`;
}

/**
 * A text made from the ISO time of a wall-clock millisecond (`Date.now()` when not given) by
 * `make`, remade only when the millisecond changes: the lines of a saturated server share a few
 * milliseconds each.
 */
export function perMillisecond(make: (iso: string) => string): (epochMs?: number) => string {
  let lastMs = Number.NaN;
  let text = '';
  return (epochMs = Date.now()) => {
    // A time that is not one (never from the tracker) is taken as now rather than thrown in a timer.
    const ms = Number.isFinite(epochMs) ? Math.floor(epochMs) : Date.now();
    if (ms !== lastMs) {
      lastMs = ms;
      text = make(new Date(ms).toISOString());
    }
    return text;
  };
}

/**
 * The start of an `info` line, `{"level":"info","time":"<ISO>"` and what follows it (`,"req_id":`
 * for a request line), for a wall-clock millisecond ({@link perMillisecond}).
 */
export function lineStart(follows: string): (epochMs?: number) => string {
  return perMillisecond((iso) => `{"level":"info","time":"${iso}"${follows}`);
}

/**
 * One request line, in ASCII, the way pino writes an `info` line of these fields with the
 * message `request` (level label, `time`, the fields, `msg`), newline included:
 * `{"level":"info","time":"...","req_id":"...","method":"GET","route":"/v1/...","status":200,"ms":1.25,"agent_id":"agt_...","msg":"request"}`.
 * `start` is the line's start for its time (`lineStart(',"req_id":')`); all but the request id
 * and `ms` are texts made once per route, status and agent, so a line is five strings joined.
 */
export function requestLine(request: CompletedRequest, start: string): string {
  return start + jsonString(request.reqId) + middleOf(request.method, request.route, request.status) + millisecondsText(request.ms) + endOf(request.agentId);
}
