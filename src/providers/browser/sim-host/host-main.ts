// Entry of a simulated-browser host process (one per session). It runs with
// --disallow-code-generation-from-strings and --frozen-intrinsics, so page scripts (which run in
// happy-dom's VM context, where code generation stays allowed) cannot compile code in this
// process's own realm, and under Node's permission model (no child processes, workers or file
// writes). It makes no network requests: every page load goes to the service over IPC.
import { CdpServer } from './cdp-server.js';
import type { FromHost, HostInit, ToHost } from './protocol.js';

const init = JSON.parse(process.env.SIM_BROWSER_INIT ?? '{}') as HostInit;
const send = (message: FromHost) => process.send!(message);
const { Browser } = (await import(init.happyDom)) as { Browser: new (options: object) => any };

const loads = new Map<number, (answer: Extract<ToHost, { t: 'loaded' }>) => void>();
let nextLoad = 1;
let server: CdpServer;

/** Asks the service for a resource; answers a happy-dom Response of the requesting window. */
async function load(request: any, window: any): Promise<any> {
  const page = server?.pageOfWindow(window);
  page?.requestStarted(window, String(request.url));
  const bytes = request.method === 'GET' || request.method === 'HEAD' ? null : Buffer.from(await request.arrayBuffer());
  const headers: Record<string, string> = {};
  request.headers.forEach((value: string, name: string) => (headers[name] = value));
  const id = nextLoad++;
  const answer = await new Promise<Extract<ToHost, { t: 'loaded' }>>((resolve) => {
    loads.set(id, resolve);
    send({ t: 'load', id, method: String(request.method), url: String(request.url), headers, body: bytes ? bytes.toString('base64') : null });
  });
  if (!answer.ok) {
    page?.responded(window, 'net::ERR_CONNECTION_REFUSED');
    throw new Error(answer.error);
  }
  const status = answer.status;
  const body = status === 204 || status === 304 || request.method === 'HEAD' ? null : Buffer.from(answer.body, 'base64');
  const response = new window.Response(body, { status, headers: answer.headers });
  response.url = answer.url;
  page?.responded(window);
  return response;
}

const browser = new Browser({
  settings: {
    enableJavaScriptEvaluation: true,
    suppressInsecureJavaScriptEnvironmentWarning: true,
    navigator: { userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36 agent-services-simulated' },
    fetch: { interceptor: { beforeAsyncRequest: ({ request, window }: { request: any; window: any }) => load(request, window) } },
    navigation: { beforeContentCallback: (window: any) => server?.pageOfWindow(window)?.commit(window) },
    errorCapture: 'processLevel',
  },
});
const context = browser.defaultContext;

process.on('message', (message: ToHost) => {
  switch (message.t) {
    case 'start':
      server = new CdpServer(() => context.newPage(), message.init.viewport, message.init.navigationTimeoutMs);
      server.createPage(message.init.url, () => send({ t: 'started' }));
      break;
    case 'open':
      server.open(message.c, (text) => send({ t: 'out', c: message.c, m: text }));
      break;
    case 'in':
      void server.receive(message.c, message.m);
      break;
    case 'close':
      server.close(message.c);
      break;
    case 'loaded':
      loads.get(message.id)?.(message);
      loads.delete(message.id);
      break;
    case 'shot': {
      const page = server.currentPage();
      const shot = page?.screenshot();
      send(shot ? { t: 'shot', id: message.id, png: shot.png.toString('base64'), width: shot.width, height: shot.height } : { t: 'shot', id: message.id, png: '', width: 0, height: 0 });
      break;
    }
  }
});
process.on('uncaughtException', () => undefined);
process.on('unhandledRejection', () => undefined);
process.on('disconnect', () => process.exit(0));
send({ t: 'ready' });
