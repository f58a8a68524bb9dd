/**
 * A local TwiML server for phone tests: answers fixed documents by path on 127.0.0.1 and records
 * every request (method, path, query, form fields) the service makes when it runs a call flow.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the server received. */
export interface TwimlRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  form: Record<string, string>;
  contentType: string;
}

/** An answer: status, body and content type (default 200, text/xml). */
export interface TwimlAnswer {
  status?: number;
  body: string;
  contentType?: string;
}

/** A running TwiML server. */
export interface TwimlServer {
  url: string;
  requests: TwimlRequest[];
  close(): Promise<void>;
}

/** Starts a server answering `routes[path]` (a fixed answer, or one computed from the request). */
export async function startTwimlServer(routes: Record<string, TwimlAnswer | ((request: TwimlRequest) => TwimlAnswer)>): Promise<TwimlServer> {
  const requests: TwimlRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const request: TwimlRequest = {
        method: req.method ?? '',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        form: Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))),
        contentType: req.headers['content-type'] ?? '',
      };
      requests.push(request);
      const route = routes[url.pathname];
      const answer = typeof route === 'function' ? route(request) : (route ?? { status: 404, body: 'not found', contentType: 'text/plain' });
      res.writeHead(answer.status ?? 200, { 'content-type': answer.contentType ?? 'text/xml' });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
