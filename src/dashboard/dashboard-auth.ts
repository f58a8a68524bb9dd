import { createHmac, timingSafeEqual } from 'node:crypto';

/** Name of the cookie `/_dashboard?token=` sets. */
export const DASHBOARD_COOKIE = 'agent_services_dashboard';

/** What the dashboard does with a request before any page code runs. */
export type DashboardAccess =
  | { kind: 'allowed' }
  /** The token was given in the query: set the cookie and redirect to `location` (the URL without it). */
  | { kind: 'login'; cookie: string; location: string }
  | { kind: 'unauthorized' }
  /** Live mode without an admin token: the dashboard does not exist. */
  | { kind: 'hidden' };

/** How the dashboard is protected, from the runtime's mode and admin token. */
export interface DashboardAuthOptions {
  mode: 'simulated' | 'live';
  adminToken?: string | undefined;
}

/**
 * The cookie value for a token: an HMAC of a fixed label keyed by the token, so the browser never
 * holds the token itself and the value is useless on `/_sim`.
 */
export function cookieValueOf(adminToken: string): string {
  return createHmac('sha256', adminToken).update('agent-services dashboard session').digest('base64url');
}

function sameSecret(given: string, expected: string): boolean {
  const left = Buffer.from(given);
  const right = Buffer.from(expected);
  return left.length === right.length && timingSafeEqual(left, right);
}

function cookieOf(header: string | null, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * Decides who may see the dashboard (DECISIONS.md): open in simulation without an admin token;
 * with one, `Authorization: Bearer <token>`, the cookie, or `?token=<token>` (which logs in);
 * otherwise 401; in live mode without an admin token never served.
 */
export function dashboardAccess(request: Request, options: DashboardAuthOptions): DashboardAccess {
  const token = options.adminToken;
  if (token === undefined || token === '') return options.mode === 'simulated' ? { kind: 'allowed' } : { kind: 'hidden' };
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '')?.[1];
  if (bearer !== undefined && sameSecret(bearer, token)) return { kind: 'allowed' };
  const url = new URL(request.url);
  const queryToken = url.searchParams.get('token');
  if (queryToken !== null) {
    if (!sameSecret(queryToken, token)) return { kind: 'unauthorized' };
    url.searchParams.delete('token');
    const cookie = `${DASHBOARD_COOKIE}=${cookieValueOf(token)}; Path=/_dashboard; HttpOnly; SameSite=Strict`;
    return { kind: 'login', cookie, location: `${url.pathname}${url.search}` };
  }
  const cookie = cookieOf(request.headers.get('cookie'), DASHBOARD_COOKIE);
  if (cookie !== undefined && sameSecret(cookie, cookieValueOf(token))) return { kind: 'allowed' };
  return { kind: 'unauthorized' };
}
