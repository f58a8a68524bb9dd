/** What to do with one client message: forward it (possibly rewritten) or answer it here. */
export type Guarded = { forward: string; reply?: undefined } | { reply: string; forward?: undefined };

/** Schemes a client may not open through DevTools: they reach the host, not the web. */
const HOST_SCHEMES = /^\s*(file|chrome|chrome-untrusted|devtools|view-source):/i;

/**
 * Keeps a DevTools client from reaching the service's host through the browser: navigations and
 * new targets to `file:` and browser-internal URLs are refused, and downloads are denied (a
 * client could otherwise write files to any host path). Messages that cannot be such a command
 * (the common case) are passed through without being parsed, so the proxy stays cheap.
 */
export function guardClientMessage(message: string): Guarded {
  if (!/file:|chrome|devtools:|view-source:|Download/i.test(message)) return { forward: message };
  let parsed: { id?: unknown; method?: unknown; params?: Record<string, unknown>; sessionId?: unknown };
  try {
    parsed = JSON.parse(message) as typeof parsed;
  } catch {
    return { forward: message };
  }
  const { method, params } = parsed;
  if (method === 'Browser.setDownloadBehavior' || method === 'Page.setDownloadBehavior') {
    const denied = {
      ...parsed,
      params: {
        behavior: 'deny',
        ...(params?.browserContextId === undefined ? {} : { browserContextId: params.browserContextId }),
        ...(params?.eventsEnabled === undefined ? {} : { eventsEnabled: params.eventsEnabled }),
      },
    };
    return { forward: JSON.stringify(denied) };
  }
  const url = params?.url;
  if ((method === 'Page.navigate' || method === 'Target.createTarget') && typeof url === 'string' && HOST_SCHEMES.test(url)) {
    return {
      reply: JSON.stringify({
        id: parsed.id,
        error: { code: -32000, message: 'this browser session may not open file: or browser-internal URLs' },
        ...(parsed.sessionId === undefined ? {} : { sessionId: parsed.sessionId }),
      }),
    };
  }
  return { forward: message };
}
