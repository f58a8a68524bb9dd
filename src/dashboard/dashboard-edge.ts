import type { AreaEdge } from '../runtime/areas/area-module.js';
import type { Runtime } from '../runtime/create-runtime.js';
import { dashboardAccess, type DashboardAuthOptions } from './dashboard-auth.js';

/** Where the dashboard is mounted. */
export const DASHBOARD_PATH = '/_dashboard';

/** Largest body the dashboard takes: a snapshot to restore (the same as `POST /_sim/restore`). */
const MAX_BODY_BYTES = 512 * 1024 * 1024;

const UNAUTHORIZED_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>401 · agent-services dashboard</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 36rem; margin: 3rem auto; padding: 0 1rem">
<h1>Admin token required</h1>
<p>This server has an admin token. Open <code>/_dashboard?token=&lt;admin token&gt;</code> once (it sets a cookie), or send <code>Authorization: Bearer &lt;admin token&gt;</code>.</p>
</body></html>`;

/**
 * The dashboard as an HTTP edge of `runtime` (`/_dashboard`). Access is decided here, cheaply; the
 * pages (and hono's HTML renderer) are loaded on the first allowed request, so a server that is
 * never looked at does not pay for them.
 */
export function dashboardEdge(runtime: Runtime, options: { adminToken?: string | undefined } = {}): AreaEdge {
  const auth: DashboardAuthOptions = { mode: runtime.mode, adminToken: options.adminToken };
  let app: Promise<(request: Request) => Promise<Response>> | undefined;
  return {
    kind: 'http',
    prefix: DASHBOARD_PATH,
    maxBodyBytes: MAX_BODY_BYTES,
    async fetch(request) {
      const access = dashboardAccess(request, auth);
      switch (access.kind) {
        case 'hidden':
          return new Response(JSON.stringify({ error: { code: 'not_found', message: 'no such route' } }), { status: 404, headers: { 'content-type': 'application/json' } });
        case 'unauthorized':
          return new Response(UNAUTHORIZED_PAGE, {
            status: 401,
            headers: { 'content-type': 'text/html; charset=utf-8', 'www-authenticate': 'Bearer realm="agent-services dashboard"', 'cache-control': 'no-store' },
          });
        case 'login':
          return new Response(null, { status: 303, headers: { location: access.location, 'set-cookie': access.cookie, 'cache-control': 'no-store' } });
        case 'allowed':
          app ??= import('./dashboard-app.js').then(({ dashboardApp }) => dashboardApp(runtime));
          return (await app)(request);
      }
    },
  };
}
