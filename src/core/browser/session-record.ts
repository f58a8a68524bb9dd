import { timingSafeEqual } from 'node:crypto';
import { ApiError } from '../shared/api-error.js';
import { toIso } from '../shared/time.js';
import type { BrowserSession, TerminatedReason } from './browser.schema.js';
import { devtoolsPath, wsBaseOf } from './devtools-path.js';

/** The collection of session records. */
export const SESSIONS = 'browser_sessions';

/** A session as stored. Live browsers are never stored: a restored world has none. */
export interface StoredSession {
  session_id: string;
  agent_id: string;
  secret: string;
  status: 'open' | 'terminated';
  created_at: string;
  /** Last activity the store knows of; newer activity is kept in memory until the idle job runs. */
  last_activity_ms: number;
  url: string | null;
  viewport: { width: number; height: number };
  terminated_at: string | null;
  terminated_reason: TerminatedReason | null;
  job_id: string | null;
  /** In a world several processes serve: the process running the browser, and its advertised URL. */
  owner_id?: string;
  owner_url?: string;
}

/**
 * A session as the API shows it. `liveActivityMs` is activity noted in memory since the record
 * was written; the DevTools endpoint is on the owner's advertised URL, else on `baseUrl`.
 */
export function sessionWire(session: StoredSession, liveActivityMs: number, baseUrl: string, idleSeconds: number): BrowserSession {
  const lastActivity = Math.max(session.last_activity_ms, liveActivityMs);
  return {
    session_id: session.session_id,
    ws_endpoint: `${wsBaseOf(session.owner_url ?? baseUrl)}${devtoolsPath(session.session_id, session.secret)}`,
    status: session.status,
    created_at: session.created_at,
    expires_at: toIso(lastActivity + idleSeconds * 1000),
    last_activity_at: toIso(lastActivity),
    url: session.url,
    viewport: session.viewport,
    terminated_at: session.terminated_at,
    terminated_reason: session.terminated_reason,
  };
}

/** The message of the per-agent limit. */
export function agentLimitMessage(max: number): string {
  return `an agent may hold at most ${max} open browser sessions; delete one first`;
}

/** 429 rate_limited with Retry-After: the seconds until the soonest of the holding sessions can end idle. */
export function rateLimited(lastActivity: readonly number[], idleMs: number, now: number, message: string): ApiError {
  const soonest = Math.min(...lastActivity.map((last) => last + idleMs));
  const seconds = Math.max(1, Math.ceil((soonest - now) / 1000));
  return new ApiError('rate_limited', message, undefined, { 'Retry-After': String(seconds) });
}

/** Compares a presented secret with the expected one in constant time. */
export function sameSecret(given: string, expected: string): boolean {
  const left = Buffer.from(given);
  const right = Buffer.from(expected);
  return left.length === right.length && timingSafeEqual(left, right);
}
