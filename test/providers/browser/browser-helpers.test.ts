/** Pure pieces of the browser providers: the DevTools path, the proxy's guard, page loading, PNGs. */
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { devtoolsPath, parseDevtoolsPath, wsBaseOf } from '../../../src/core/browser/devtools-path.js';
import { guardClientMessage } from '../../../src/providers/browser/cdp-guard.js';
import { pageLoader } from '../../../src/providers/browser/page-loaders.js';
import { encodePng } from '../../../src/providers/browser/sim-host/png.js';
import type { HttpClient, OutboundRequest } from '../../../src/core/ports/http-client.js';

describe('DevTools endpoint paths', () => {
  it('carry the session id and the secret, and parse back', () => {
    const path = devtoolsPath('bs_abc', 'S3cret');
    expect(path).toBe('/v1/compute/browser/sessions/bs_abc/devtools/S3cret');
    expect(parseDevtoolsPath(`${path}?x=1`)).toEqual({ sessionId: 'bs_abc', secret: 'S3cret' });
    expect(parseDevtoolsPath('/v1/compute/browser/sessions/bs_abc/devtools')).toEqual({ sessionId: 'bs_abc', secret: null });
    expect(parseDevtoolsPath('/v1/compute/browser/sessions/bs_abc/screenshot')).toBeUndefined();
    expect(parseDevtoolsPath('/v1/compute/browser/sessions/../devtools/x')).toBeUndefined();
  });

  it('turn http and https base URLs into ws and wss', () => {
    expect(wsBaseOf('http://127.0.0.1:8787')).toBe('ws://127.0.0.1:8787');
    expect(wsBaseOf('https://api.example.com/')).toBe('wss://api.example.com');
  });
});

describe('the DevTools proxy guard', () => {
  it('passes ordinary messages through untouched', () => {
    const message = JSON.stringify({ id: 1, method: 'Runtime.evaluate', params: { expression: '1 + 1' }, sessionId: 'S' });
    expect(guardClientMessage(message)).toEqual({ forward: message });
  });

  it('refuses navigations and new targets to file: and browser-internal URLs with a protocol error', () => {
    for (const [method, url] of [
      ['Page.navigate', 'file:///etc/passwd'],
      ['Target.createTarget', 'chrome://settings'],
      ['Page.navigate', ' FILE:///root'],
    ] as const) {
      const guarded = guardClientMessage(JSON.stringify({ id: 7, method, params: { url }, sessionId: 'S' }));
      expect(guarded.forward).toBeUndefined();
      expect(JSON.parse(guarded.reply!)).toMatchObject({ id: 7, sessionId: 'S', error: { code: -32000 } });
    }
  });

  it('turns every download behaviour into deny, so no client writes to host paths', () => {
    const guarded = guardClientMessage(JSON.stringify({ id: 3, method: 'Browser.setDownloadBehavior', params: { behavior: 'allowAndName', downloadPath: '/etc', eventsEnabled: true } }));
    expect(JSON.parse(guarded.forward!)).toEqual({ id: 3, method: 'Browser.setDownloadBehavior', params: { behavior: 'deny', eventsEnabled: true } });
  });
});

describe('the simulated browser page loader', () => {
  const answers: Record<string, { status: number; headers: Record<string, string>; body: string }> = {
    'http://site.test/form': { status: 303, headers: { location: '/done' }, body: '' },
    'http://site.test/done': { status: 200, headers: { 'content-type': 'text/html' }, body: '<p>done</p>' },
  };
  const seen: OutboundRequest[] = [];
  const http: HttpClient = {
    request: async (request) => {
      seen.push(request);
      const answer = answers[request.url];
      if (!answer) throw new Error('connection refused');
      return { status: answer.status, headers: answer.headers, body: new TextEncoder().encode(answer.body) };
    },
  };

  it('follows a 303 after a form post with a GET and answers the final URL', async () => {
    const load = pageLoader({ http, timeoutMs: 1000 });
    const response = await load({ method: 'POST', url: 'http://site.test/form', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new TextEncoder().encode('method=card') });
    expect(response.url).toBe('http://site.test/done');
    expect(new TextDecoder().decode(response.body)).toBe('<p>done</p>');
    expect(seen.map((request) => [request.method, request.url, request.body === undefined])).toEqual([
      ['POST', 'http://site.test/form', false],
      ['GET', 'http://site.test/done', true],
    ]);
    expect(seen[1]!.headers).toEqual({});
  });

  it('answers URLs under the runtime itself in-process, without the network', async () => {
    const load = pageLoader({ http, timeoutMs: 1000, inProcess: { baseUrl: () => 'http://own.test', fetch: async (request) => new Response(`own ${new URL(request.url).pathname}`, { status: 200 }) } });
    const response = await load({ method: 'GET', url: 'http://own.test/pay/invoices/inv_1', headers: {}, body: null });
    expect(new TextDecoder().decode(response.body)).toBe('own /pay/invoices/inv_1');
  });
});

describe('the PNG encoder', () => {
  it('writes a valid PNG whose pixels read back', () => {
    const pixels = new Uint8Array(2 * 2 * 3).fill(255);
    pixels.set([255, 0, 0], 0);
    const png = encodePng(2, 2, pixels);
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([2, 2]);
    const idat = png.indexOf('IDAT');
    const raw = inflateSync(png.subarray(idat + 4, idat + 4 + png.readUInt32BE(idat - 4)));
    expect([...raw.subarray(0, 7)]).toEqual([0, 255, 0, 0, 255, 255, 255]);
  });
});
