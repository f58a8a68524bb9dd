import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchHttpClient } from '../../../src/providers/http/fetch-http-client.js';

describe('FetchHttpClient with a pinned address', () => {
  let server: Server;
  let port = 0;
  const seen: { host: string | undefined; body: string; method: string | undefined }[] = [];
  beforeAll(async () => {
    server = createServer((request: IncomingMessage, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        seen.push({ host: request.headers.host, body: Buffer.concat(chunks).toString('utf8'), method: request.method });
        response.writeHead(202, { 'content-type': 'text/plain', 'x-reply': 'yes' });
        response.end('accepted');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  // `.invalid` never resolves (RFC 6761): only the pinned address can reach the server.
  const url = () => `http://hooks.rebind.invalid:${port}/hook`;

  it('connects to the given address, keeping the URL host in the Host header', async () => {
    const answer = await new FetchHttpClient().request({ method: 'POST', url: url(), address: '127.0.0.1', headers: { 'content-type': 'application/json' }, body: '{"a":1}', timeoutMs: 10_000 });
    expect({ status: answer.status, reply: answer.headers['x-reply'], body: Buffer.from(answer.body).toString('utf8') }).toEqual({ status: 202, reply: 'yes', body: 'accepted' });
    expect(seen.at(-1)).toEqual({ host: `hooks.rebind.invalid:${port}`, body: '{"a":1}', method: 'POST' });
  });

  it('without an address the name is looked up (and here does not resolve)', async () => {
    await expect(new FetchHttpClient().request({ method: 'POST', url: url(), body: 'x', timeoutMs: 10_000 })).rejects.toThrow();
  });

  it('refuses an address that is not an IP address', async () => {
    await expect(new FetchHttpClient().request({ method: 'GET', url: url(), address: 'example.com', timeoutMs: 10_000 })).rejects.toThrow('address must be an IP address');
  });
});
