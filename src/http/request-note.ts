import type { ServerResponse } from 'node:http';

/** What the app learned about a request while answering it, for its log line and metrics. */
export interface RequestNote {
  /**
   * The route's path template (`/v1/wallet/transactions/{id}`), an edge's prefix (`/pay`), or a
   * page's path (`/healthz`); null for a path that leads nowhere. Never the request's own target,
   * which may carry a token in its query (`/_dashboard?token=`).
   */
  route: string | null;
  /** The agent the call acted as, or null. */
  agentId: string | null;
}

const NOTE = Symbol('agent-services request note');
type Noted = ServerResponse & { [NOTE]?: RequestNote };

/** Records what a request was, on its response (one property: cheaper than a map per request). */
export function noteRequest(response: ServerResponse, route: string | null, agentId: string | null = null): void {
  (response as Noted)[NOTE] = { route, agentId };
}

/** What {@link noteRequest} recorded, or undefined. */
export function requestNoteOf(response: ServerResponse): RequestNote | undefined {
  return (response as Noted)[NOTE];
}
