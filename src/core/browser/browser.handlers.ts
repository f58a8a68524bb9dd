import { bindRoute, callerOf, type BoundRoute } from '../api/route.js';
import { browserRoutes as routes } from './browser.routes.js';
import type { BrowserSessions } from './browser.service.js';

/** Binds the browser-session routes to the service. */
export function browserHandlers(sessions: BrowserSessions): BoundRoute[] {
  return [
    bindRoute(routes.createSession, (context, { body }) => sessions.create(callerOf(context), body)),
    bindRoute(routes.listSessions, (context, { query }) => sessions.list(callerOf(context), query)),
    bindRoute(routes.getSession, (context, { params }) => sessions.get(callerOf(context), params.session_id)),
    bindRoute(routes.deleteSession, async (context, { params }) => {
      await sessions.delete(callerOf(context), params.session_id);
      return undefined;
    }),
    bindRoute(routes.screenshot, (context, { params }) => sessions.screenshot(callerOf(context), params.session_id)),
  ];
}
