import { connect as connectTcp, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, serve, type AreaEdge, type Runtime, type RunningServer } from '../../src/index.js';
import { createApp } from '../../src/http/create-app.js';
import { expectErrorResponse } from '../support/transports.js';

/** A runtime whose areas answer `edges` (no area of the package mounts one yet). */
async function runtimeWith(edges: AreaEdge[]): Promise<Runtime> {
  const runtime = await createRuntime();
  return Object.create(runtime, { edges: { value: () => edges } }) as Runtime;
}

/** Sends a raw upgrade request and answers everything the server sent until it closed the socket. */
function upgrade(url: string, path: string): Promise<{ text: string; closed: boolean }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket: Socket = connectTcp(Number(port), hostname, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`);
    });
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\r\n\r\nhello')) {
        socket.destroy();
        resolve({ text, closed: false });
      }
    });
    socket.once('error', reject);
    socket.once('close', () => resolve({ text, closed: true }));
  });
}

describe('area edges mounted by the HTTP layer', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const seen: string[] = [];
  const httpEdge: AreaEdge = {
    kind: 'http',
    prefix: '/_hooks',
    fetch: async (request) => {
      const path = new URL(request.url).pathname;
      seen.push(`${request.method} ${path} ${request.method === 'POST' ? await request.text() : ''}`.trim());
      return new Response(JSON.stringify({ path }), { status: 202, headers: { 'content-type': 'application/json', 'set-cookie': 'a=1' } });
    },
  };
  const upgradeEdge: AreaEdge = {
    kind: 'upgrade',
    prefix: '/_ws',
    upgrade: (request, socket) => {
      socket.end(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nX-Path: ${request.url}\r\n\r\nhello`);
    },
  };

  it.each(['fetch', 'http'] as const)('sends every path under an http edge prefix to it, with method and body (%s)', async (kind) => {
    const runtime = await runtimeWith([httpEdge, upgradeEdge]);
    let send: (path: string, init?: RequestInit) => Promise<Response>;
    if (kind === 'http') {
      const running = (server = await serve(runtime, { port: 0 }));
      send = (path, init) => fetch(running.url + path, init);
    } else {
      const app = createApp(runtime);
      send = (path, init) => app.fetch(new Request(`http://in-process.test${path}`, init));
    }
    seen.length = 0;
    const root = await send('/_hooks');
    expect(root.status).toBe(202);
    expect(await root.json()).toEqual({ path: '/_hooks' });
    const deep = await send('/_hooks/twilio/sms', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'Body=hi' });
    expect(deep.status).toBe(202);
    expect(deep.headers.get('set-cookie')).toBe('a=1');
    expect(seen).toEqual(['GET /_hooks', 'POST /_hooks/twilio/sms Body=hi']);
    // A prefix is a whole path segment: /_hooksmith is not under /_hooks.
    await expectErrorResponse(await send('/_hooksmith'), 404, 'not_found');
  });

  it.each(['fetch', 'http'] as const)('refuses a body over the runtime limit with 413 before the edge sees it (%s)', async (kind) => {
    const runtime = await runtimeWith([httpEdge]);
    const app = createApp(runtime);
    const running = kind === 'http' ? (server = await serve(runtime, { port: 0 })) : undefined;
    seen.length = 0;
    const init = { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x'.repeat(runtime.maxBodyBytes + 1) };
    const response = running ? await fetch(`${running.url}/_hooks/big`, init) : await app.fetch(new Request('http://in-process.test/_hooks/big', init));
    await expectErrorResponse(response, 413, 'payload_too_large');
    expect(seen).toEqual([]);
  });

  it('hands a WebSocket upgrade under an upgrade edge prefix to it', async () => {
    server = await serve(await runtimeWith([httpEdge, upgradeEdge]), { port: 0 });
    const answer = await upgrade(server.url, '/_ws/session/1?x=2');
    expect(answer.text).toMatch(/^HTTP\/1\.1 101 /);
    expect(answer.text).toContain('X-Path: /_ws/session/1?x=2');
  });

  it('answers any other upgrade with 404 and closes the socket', async () => {
    server = await serve(await runtimeWith([httpEdge, upgradeEdge]), { port: 0 });
    for (const path of ['/v1/agent', '/_hooks/x', '/_wsx']) {
      const answer = await upgrade(server.url, path);
      expect(answer.text, path).toMatch(/^HTTP\/1\.1 404 /);
      expect(answer.closed, path).toBe(true);
    }
  });
});
