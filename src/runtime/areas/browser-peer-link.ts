import { randomBytes, randomUUID } from 'node:crypto';
import type { BrowserSessions } from '../../core/browser/browser.service.js';
import { PEER_PATH, type BrowserOwnerSelf, type BrowserPeers, type PeerAddress, type PeerCall } from '../../core/browser/browser-peers.js';
import { sameSecret } from '../../core/browser/session-record.js';
import { ApiError, toApiError } from '../../core/shared/api-error.js';

/** Real time a forwarded call may take before the owner counts as unreachable. */
const PEER_TIMEOUT_MS = 15_000;
const OPS = new Set<PeerCall['op']>(['show', 'screenshot', 'delete', 'activity']);

/** The link of a process that serves a world alone (memory, SQLite): nothing to forward to. */
export const NO_PEERS: BrowserPeers = {
  self: undefined,
  call: () => Promise.reject(new Error('this world has no other processes')),
};

/**
 * This process among the others serving one PostgreSQL world: a fresh owner id and secret per
 * start (from the OS: a secret drawn from the world's seeded generator could be recomputed by
 * anyone knowing the seed), and calls to owners over HTTP with `fetch`.
 */
export function httpPeers(advertisedUrl: () => string): BrowserPeers {
  const self: BrowserOwnerSelf = { id: randomUUID(), secret: randomBytes(32).toString('base64url'), url: advertisedUrl };
  return {
    self,
    async call(owner: PeerAddress, call: PeerCall) {
      const response = await fetch(`${owner.url}${PEER_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.secret}` },
        body: JSON.stringify(call),
        signal: AbortSignal.timeout(PEER_TIMEOUT_MS),
      });
      const text = await response.text();
      let body: unknown = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        // Not an owner answering (something else listens there now): no answer.
        throw new Error(`not a peer answer from ${owner.url} (status ${response.status})`);
      }
      return { status: response.status, body };
    },
  };
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** Reads a forwarded call's body; undefined when it is not one. */
function peerCallOf(value: unknown): PeerCall | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const call = value as Record<string, unknown>;
  if (!OPS.has(call.op as PeerCall['op']) || typeof call.session_id !== 'string' || typeof call.agent_id !== 'string') return undefined;
  if (call.at_ms !== undefined && !Number.isSafeInteger(call.at_ms)) return undefined;
  return { op: call.op as PeerCall['op'], session_id: call.session_id, agent_id: call.agent_id, ...(call.at_ms === undefined ? {} : { at_ms: call.at_ms as number }) };
}

/**
 * Answers `POST /_peer/browser` on the owner: a call another process of the world forwarded, with
 * this process's secret as bearer. Anything else is 404 (the edge does not show itself to others).
 */
export async function answerPeerRequest(request: Request, self: BrowserOwnerSelf, sessions: BrowserSessions): Promise<Response> {
  const bearer = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
  const path = new URL(request.url).pathname;
  if (request.method !== 'POST' || path !== PEER_PATH || bearer === undefined || !sameSecret(bearer, self.secret)) {
    return json(404, new ApiError('not_found', 'no such route').toBody());
  }
  let call: PeerCall | undefined;
  try {
    call = peerCallOf(await request.json());
  } catch {
    call = undefined;
  }
  if (!call) return json(400, new ApiError('invalid_request', 'not a forwarded browser-session call').toBody());
  try {
    return json(200, (await sessions.answerPeer(call)) ?? {});
  } catch (error) {
    const apiError = toApiError(error);
    if (!(error instanceof ApiError)) process.stderr.write(`internal error answering a forwarded browser call: ${(error as Error)?.stack ?? String(error)}\n`);
    return json(apiError.status, apiError.toBody(), { ...apiError.headers });
  }
}
