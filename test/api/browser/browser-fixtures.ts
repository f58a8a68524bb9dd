/** Shared pieces of the browser-session tests: a local site, a served runtime, PNG checks. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { createRuntime, serve, type RunningServer, type Runtime, type RuntimeOptions } from '../../../src/index.js';

/** Debian's Chromium, or CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Whether Chromium tests can run here. */
export const HAS_CHROMIUM = existsSync(CHROMIUM);

/** The page the tests drive: a heading a button changes, an input, a link. */
export const SITE_PAGE = `<!doctype html><html><head><title>Test page</title></head><body>
<h1 id="heading">Hello</h1>
<p>Press the button to change the heading.</p>
<button id="change" onclick="document.getElementById('heading').textContent = 'Clicked ' + document.getElementById('name').value">Change</button>
<input id="name" value="">
</body></html>`;

/** A local 127.0.0.1 server answering {@link SITE_PAGE}. */
export async function startSite(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_request, response) => {
    response.setHeader('content-type', 'text/html; charset=utf-8');
    response.end(SITE_PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A runtime served on a free port, with one browser provider. */
export async function servedRuntime(options: RuntimeOptions): Promise<{ runtime: Runtime; server: RunningServer; close(): Promise<void> }> {
  const runtime = await createRuntime(options);
  const server = await serve(runtime, { port: 0 });
  return {
    runtime,
    server,
    close: async () => {
      await server.close();
      await runtime.close();
    },
  };
}

/** Width and height of a Base64 PNG, after checking its signature. */
export function pngDimensions(base64: string): { width: number; height: number } {
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a') throw new Error('not a PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** Tries a WebSocket upgrade and answers the HTTP status it was refused with (101 when accepted). */
export function upgradeStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(url.replace(/^ws/, 'http'));
    const request = http.request({
      host: target.hostname,
      port: target.port,
      path: target.pathname + target.search,
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' },
    });
    request.on('upgrade', (response, socket) => {
      socket.destroy();
      resolve(response.statusCode ?? 0);
    });
    request.on('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
    request.end();
  });
}
