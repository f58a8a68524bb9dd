/** Prefix of the DevTools WebSocket edge (the upgrade path of every session's ws_endpoint). */
export const DEVTOOLS_PREFIX = '/v1/compute/browser/sessions/';

const DEVTOOLS_PATH = /^\/v1\/compute\/browser\/sessions\/([A-Za-z0-9_]{1,64})\/devtools(?:\/([A-Za-z0-9]{0,128}))?\/?$/;

/** The path of a session's DevTools endpoint; the secret is its last segment. */
export function devtoolsPath(sessionId: string, secret: string): string {
  return `${DEVTOOLS_PREFIX}${sessionId}/devtools/${secret}`;
}

/** Reads a DevTools upgrade path (query ignored); undefined when it is not one. A missing secret is null. */
export function parseDevtoolsPath(pathAndQuery: string): { sessionId: string; secret: string | null } | undefined {
  const path = pathAndQuery.split('?')[0] ?? '';
  const match = DEVTOOLS_PATH.exec(path);
  if (!match) return undefined;
  return { sessionId: match[1]!, secret: match[2] ? match[2] : null };
}

/** `ws://` or `wss://` form of an http(s) base URL. */
export function wsBaseOf(baseUrl: string): string {
  return baseUrl.replace(/^http(s?):\/\//, 'ws$1://').replace(/\/$/, '');
}

/**
 * A client's `Browser.close` at the browser level (puppeteer's `browser.close()`), with the id to
 * answer; undefined for any other message (one on a page session included).
 */
export function browserCloseOf(message: string): { id: unknown } | undefined {
  let parsed: { id?: unknown; method?: unknown; sessionId?: unknown };
  try {
    parsed = JSON.parse(message) as typeof parsed;
  } catch {
    return undefined;
  }
  if (parsed.method !== 'Browser.close' || parsed.sessionId !== undefined) return undefined;
  return { id: parsed.id };
}
