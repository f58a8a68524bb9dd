import { ApiError } from '../core/shared/api-error.js';
import { RuntimeSnapshot } from '../core/control/control.schema.js';
import type { AgentClient } from '../runtime/clients.js';
import type { Runtime } from '../runtime/create-runtime.js';
import { asset } from './assets/assets.js';
import { eventStream } from './event-stream.js';
import { clockWidget, html, htmlResponse, notice } from './html.js';
import { pageContext, type PageContext } from './page-context.js';
import { agentsPage } from './pages/agents-page.js';
import { agentTabPage, subjectNamed } from './pages/agent-page.js';
import { eventFilterOf, eventsPage, nameOf } from './pages/events-page.js';
import { snapshotPage } from './pages/snapshot-page.js';
import { webhooksPage } from './pages/webhooks-page.js';
import { lastEventSeq } from './world-reads.js';

type Handler = (context: PageContext, params: string[]) => Promise<Response | undefined> | Response | undefined;

/** The dashboard's routes: method, a pattern over the path below `/_dashboard`, the handler. */
const ROUTES: Array<[method: 'GET' | 'POST', pattern: RegExp, handler: Handler]> = [
  ['GET', /^\/?$/, async (context) => htmlResponse(await agentsPage(context))],
  ['GET', /^\/assets\/([\w.-]+)$/, (_context, [name]) => assetResponse(name!)],
  ['GET', /^\/events$/, async (context) => htmlResponse(await eventsPage(context))],
  ['GET', /^\/events\/stream$/, (context) => streamResponse(context)],
  [
    'GET',
    /^\/webhooks$/,
    async (context) => {
      const rendered = await webhooksPage(context);
      return rendered ? htmlResponse(rendered.html) : undefined;
    },
  ],
  ['GET', /^\/snapshot$/, (context) => htmlResponse(snapshotPage(context))],
  ['GET', /^\/snapshot\/download$/, (context) => snapshotDownload(context)],
  ['POST', /^\/snapshot\/restore$/, (context) => restore(context)],
  ['GET', /^\/clock$/, (context) => htmlResponse(clockWidget(context.runtime.sim.clock().now, context.runtime.mode === 'simulated'))],
  ['POST', /^\/clock\/advance$/, (context) => advance(context)],
  ['GET', /^\/agents\/([^/]+)\/mail\/attachments\/([^/]+)$/, (context, [name, id]) => download(context, name!, (client) => client.email.downloadAttachment(id!))],
  ['GET', /^\/agents\/([^/]+)\/memory\/files\/([^/]+)$/, (context, [name, id]) => download(context, name!, (client) => client.memory.downloadFile(id!))],
  ['GET', /^\/agents\/([^/]+)\/compute\/file$/, (context, [name]) => computeFile(context, name!)],
  ['GET', /^\/agents\/([^/]+)(?:\/(wallet|mail|phone|memory|compute|browser))?$/, (context, [name, tab]) => agentTabPage(context, name!, tab ?? '')],
];

/**
 * The dashboard's request handler (loaded on the first allowed request): pages, fragments for
 * live sections, the event stream, the clock, snapshots and static files. Unknown paths are 404;
 * an API error from a read becomes its status with a short page.
 */
export function dashboardApp(runtime: Runtime): (request: Request) => Promise<Response> {
  return async (request) => {
    const context = pageContext(runtime, request);
    const path = context.url.pathname.slice('/_dashboard'.length);
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    if (method === 'POST' && !sameOrigin(request)) return errorPage(context, 403, 'cross-site requests are refused');
    let pathMatched = false;
    for (const [routeMethod, pattern, handler] of ROUTES) {
      const match = pattern.exec(path);
      if (!match) continue;
      pathMatched = true;
      if (routeMethod !== method) continue;
      try {
        const params = match.slice(1).map((part) => (part === undefined ? undefined : decodeURIComponent(part))) as string[];
        const answer = await handler(context, params);
        if (answer) return answer;
        return errorPage(context, 404, 'no such page');
      } catch (error) {
        if (error instanceof ApiError) return errorPage(context, error.status, `${error.code}: ${error.message}`);
        if (error instanceof URIError) return errorPage(context, 404, 'no such page');
        throw error;
      }
    }
    if (pathMatched) return new Response(null, { status: 405, headers: { allow: path.startsWith('/clock/advance') || path.startsWith('/snapshot/restore') ? 'POST' : 'GET, HEAD' } });
    return errorPage(context, 404, 'no such page');
  };
}

/** A POST must come from a dashboard page (or a client that sends no Origin): a foreign site cannot move the clock. */
function sameOrigin(request: Request): boolean {
  const origin = request.headers.get('origin');
  if (origin === null) return true;
  try {
    return new URL(origin).host === new URL(request.url).host;
  } catch {
    return false;
  }
}

function errorPage(context: PageContext, statusCode: number, message: string): Promise<Response> {
  return htmlResponse(context.page(`${statusCode}`, 'agents', html`<h1>${String(statusCode)}</h1>${notice('error', message)}`), { status: statusCode });
}

async function assetResponse(name: string): Promise<Response | undefined> {
  const found = asset(name);
  if (!found) return undefined;
  const { contentType, body } = await found;
  return new Response(body, { headers: { 'content-type': contentType, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' } });
}

async function streamResponse(context: PageContext): Promise<Response> {
  const { filter } = await eventFilterOf(context);
  const afterText = context.url.searchParams.get('after');
  const lastEventId = context.request.headers.get('last-event-id');
  const after = lastEventId !== null && /^\d+$/.test(lastEventId) ? Number(lastEventId) : afterText !== null && /^\d+$/.test(afterText) ? Number(afterText) : await lastEventSeq(context.runtime);
  return eventStream(context.runtime, context.request, filter, after, nameOf(context));
}

async function advance(context: PageContext): Promise<Response> {
  const form = await context.request.formData().catch(() => null);
  const seconds = Number(form?.get('seconds') ?? NaN);
  if (!Number.isInteger(seconds) || seconds < 1) throw new ApiError('invalid_request', 'seconds: expected a positive integer', 'seconds');
  const { now } = await context.runtime.simClient().advanceClock({ seconds });
  if (context.request.headers.get('hx-request') === 'true') {
    // Live sections listen for this and refresh themselves after the advance.
    return htmlResponse(clockWidget(now, true), { headers: { 'hx-trigger': 'dashboard-clock' } });
  }
  const back = context.request.headers.get('referer');
  return new Response(null, { status: 303, headers: { location: back && sameSite(back, context.url) ? back : '/_dashboard' } });
}

function sameSite(link: string, url: URL): boolean {
  try {
    const target = new URL(link);
    return target.host === url.host && target.pathname.startsWith('/_dashboard');
  } catch {
    return false;
  }
}

async function snapshotDownload(context: PageContext): Promise<Response> {
  const snapshot = await context.runtime.simClient().snapshot();
  const stamp = snapshot.clock.now.replace(/[:.]/g, '-');
  return new Response(JSON.stringify(snapshot), {
    headers: { 'content-type': 'application/json', 'content-disposition': `attachment; filename="snapshot-${stamp}.json"`, 'cache-control': 'no-store' },
  });
}

async function restore(context: PageContext): Promise<Response> {
  const form = await context.request.formData().catch(() => null);
  const file = form?.get('snapshot');
  if (!file || typeof file === 'string') return htmlResponse(snapshotPage(context, { kind: 'error', text: 'choose a snapshot file' }), { status: 400 });
  let parsed: unknown;
  try {
    parsed = JSON.parse(await file.text());
  } catch {
    return htmlResponse(snapshotPage(context, { kind: 'error', text: `${file.name}: not JSON` }), { status: 400 });
  }
  const checked = RuntimeSnapshot.safeParse(parsed);
  if (!checked.success) return htmlResponse(snapshotPage(context, { kind: 'error', text: `${file.name}: not an agent-services snapshot` }), { status: 400 });
  try {
    await context.runtime.simClient().restore(checked.data);
  } catch (error) {
    if (error instanceof ApiError) return htmlResponse(snapshotPage(context, { kind: 'error', text: `${error.code}: ${error.message}` }), { status: error.status });
    throw error;
  }
  return htmlResponse(snapshotPage(pageContext(context.runtime, context.request), { kind: 'ok', text: `Restored ${file.name}; the clock is at ${context.runtime.sim.clock().now}.` }));
}

/** A file of the agent's, downloaded through its own route; served as an attachment so the browser never renders it here. */
async function download(context: PageContext, name: string, fetchFile: (client: AgentClient) => Promise<{ content_type: string; filename: string; bytes: Uint8Array }>): Promise<Response> {
  const { client } = await subjectNamed(context, name);
  const file = await fetchFile(client);
  return fileResponse(file.filename, file.bytes);
}

async function computeFile(context: PageContext, name: string): Promise<Response> {
  const { client } = await subjectNamed(context, name);
  const path = context.url.searchParams.get('path') ?? '';
  const file = await client.compute.readFs({ path });
  return fileResponse(path.slice(path.lastIndexOf('/') + 1) || 'file', Buffer.from(file.content, 'base64'));
}

function fileResponse(filename: string, bytes: Uint8Array): Response {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return new Response(bytes, {
    headers: {
      // Never rendered here: agent files may be HTML or scripts.
      'content-type': 'application/octet-stream',
      'content-disposition': `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'cache-control': 'no-store',
    },
  });
}
