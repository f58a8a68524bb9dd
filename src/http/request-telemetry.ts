import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestNoteOf } from './request-note.js';

/** One answered (or abandoned) request, as request logs and metrics see it. */
export interface CompletedRequest {
  /** The `X-Request-Id` the client sent, or the one made for it; echoed on the answer. */
  reqId: string;
  method: string;
  /** The route's path template, an edge's prefix or a page's path; null for a path that leads nowhere. */
  route: string | null;
  status: number;
  /** Real milliseconds from the request's arrival until its answer was written or abandoned. */
  ms: number;
  /** `performance.now()` when it completed (a request line's `time` is made from it, without another clock read). */
  at: number;
  /** The agent the call acted as, or null. */
  agentId: string | null;
}

/**
 * Receives every completed request (the JSON request log, the metrics). It runs on the request's
 * path, so it keeps the request and does its work later, many requests at a time.
 */
export type RequestSink = (request: CompletedRequest) => void;

/** Request ids taken from clients: visible ASCII, at most 200 characters (anything else is replaced, never echoed). */
const CLIENT_REQUEST_ID = /^[\x21-\x7e]{1,200}$/;

/**
 * Follows the requests of one server: takes the client's `X-Request-Id` (or makes a UUID) and
 * echoes it, counts the requests in flight (a graceful stop waits for them), and hands each
 * completed request to the sinks once its connection has finished with it.
 */
export class RequestTracker {
  private inFlight = 0;
  private idle: Array<() => void> = [];

  constructor(private readonly sinks: readonly RequestSink[]) {}

  /** How many requests have arrived and not yet completed. */
  get pending(): number {
    return this.inFlight;
  }

  /** Starts following a request; call before the app answers it. */
  begin(request: IncomingMessage, response: ServerResponse): void {
    const started = performance.now();
    const given = request.headers['x-request-id'];
    const reqId = typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
    response.setHeader('x-request-id', reqId);
    this.inFlight++;
    response.once('close', () => {
      this.inFlight--;
      if (this.sinks.length > 0) {
        const note = requestNoteOf(response);
        const at = performance.now();
        const completed: CompletedRequest = {
          reqId,
          method: request.method ?? 'GET',
          route: note?.route ?? null,
          status: response.statusCode,
          ms: Math.round((at - started) * 1000) / 1000,
          agentId: note?.agentId ?? null,
          at,
        };
        for (const sink of this.sinks) sink(completed);
      }
      if (this.inFlight === 0 && this.idle.length > 0) {
        const waiting = this.idle;
        this.idle = [];
        for (const resolve of waiting) resolve();
      }
    });
  }

  /** Resolves once no request is in flight (at once when none is). */
  drained(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }
}
