// A mutating HTTP proxy for the conformance tests: it stands in front of a real server and
// rewrites answers the way a broken implementation would, so the tests can show that the suite
// catches each kind of bug.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Sends a request on to the real server. */
export type Forward = (request: Request) => Promise<Response>;
/** Answers one request, usually by forwarding it and changing the answer. */
export type Mutator = (request: Request, forward: Forward) => Promise<Response>;

/** A running proxy. */
export interface RunningProxy {
  url: string;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

/** Starts a proxy on 127.0.0.1 in front of `upstream` that answers through `mutate`. */
export async function startMutatingProxy(upstream: string, mutate: Mutator): Promise<RunningProxy> {
  const forward: Forward = (request) => fetch(request);
  const server = http.createServer((incoming, outgoing) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of incoming) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (typeof value === 'string' && !HOP_BY_HOP.has(name)) headers.set(name, value);
      }
      const method = incoming.method ?? 'GET';
      const body = method === 'GET' || method === 'HEAD' ? undefined : Buffer.concat(chunks);
      const request = new Request(upstream + (incoming.url ?? '/'), { method, headers, ...(body ? { body } : {}) });
      const response = await mutate(request, forward);
      const bytes = Buffer.from(await response.arrayBuffer());
      const answer: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        if (!HOP_BY_HOP.has(name) && name !== 'content-encoding') answer[name] = value;
      });
      outgoing.writeHead(response.status, answer);
      outgoing.end(bytes);
    })().catch((error: unknown) => {
      outgoing.writeHead(502, { 'content-type': 'text/plain' });
      outgoing.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A JSON answer with the status and headers of `like` (minus its length). */
export function jsonLike(like: Response, body: unknown, status = like.status): Response {
  const headers = new Headers(like.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(body), { status, headers });
}

/** The first array-valued field of a list answer (`transactions`, `messages`, ...). */
export function listField(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || !('next_cursor' in body)) return undefined;
  return Object.keys(body).find((key) => Array.isArray((body as Record<string, unknown>)[key]));
}

/** Changes every 402 into a 400 (the body stays as it was). */
export const payment402As400: Mutator = async (request, forward) => {
  const response = await forward(request);
  if (response.status !== 402) return response;
  return jsonLike(response, await response.json(), 400);
};

/** Repeats the last record of a page at the start of the next page of the same list. */
export function repeatAcrossPages(): Mutator {
  const lastOf = new Map<string, unknown>();
  return async (request, forward) => {
    const response = await forward(request);
    const url = new URL(request.url);
    if (request.method !== 'GET' || response.status !== 200 || !(response.headers.get('content-type') ?? '').includes('json')) return response;
    const body = (await response.json()) as Record<string, unknown[]>;
    const field = listField(body);
    if (!field) return jsonLike(response, body);
    const key = `${request.headers.get('authorization')} ${url.pathname} ${url.searchParams.get('folder') ?? ''}`;
    const items = body[field]!;
    const previous = lastOf.get(key);
    if (items.length > 0) lastOf.set(key, items[items.length - 1]);
    if (url.searchParams.has('cursor') && previous !== undefined) body[field] = [previous, ...items];
    return jsonLike(response, body);
  };
}

/** Drops the Idempotent-Replayed header from every answer. */
export const dropReplayedHeader: Mutator = async (request, forward) => {
  const response = await forward(request);
  if (!response.headers.has('idempotent-replayed')) return response;
  const headers = new Headers(response.headers);
  headers.delete('idempotent-replayed');
  return new Response(await response.arrayBuffer(), { status: response.status, headers });
};

/**
 * Lets any agent read any agent's email message: a 404 on `GET /v1/email/messages/{id}` is retried
 * with every other API key the proxy has seen, and the first 200 is answered.
 */
export function leakMessages(): Mutator {
  const keys = new Set<string>();
  return async (request, forward) => {
    const auth = request.headers.get('authorization');
    if (auth?.startsWith('Bearer ') && !request.url.includes('/_sim/')) keys.add(auth);
    const response = await forward(request.clone());
    if (request.method !== 'GET' || response.status !== 404 || !/\/v1\/email\/messages\/[^/]+$/.test(new URL(request.url).pathname)) return response;
    for (const key of keys) {
      if (key === auth) continue;
      const headers = new Headers(request.headers);
      headers.set('authorization', key);
      const other = await forward(new Request(request.url, { method: 'GET', headers }));
      if (other.status === 200) return other;
      await other.arrayBuffer();
    }
    return response;
  };
}

/**
 * Serves a minimal `/_sim/faults` (only `chain.submit` with effect `fail`) on top of the wallet's
 * `/_sim/wallet/failures`, so the tests can show that fault checks run, rather than skip, when a
 * target has the fault language.
 */
export const faultsOverWalletFailures: Mutator = async (request, forward) => {
  const url = new URL(request.url);
  if (!url.pathname.startsWith('/_sim/faults')) return forward(request);
  const upstream = `${url.origin}/_sim/wallet/failures`;
  const json = (body: unknown, status: number) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  if (request.method === 'GET') return json({ faults: [] }, 200);
  if (request.method === 'DELETE') {
    await (await forward(new Request(upstream, { method: 'DELETE' }))).arrayBuffer();
    return new Response(null, { status: 204 });
  }
  const rule = (await request.json()) as { target: string; effect: string };
  if (rule.target !== 'chain.submit' || rule.effect !== 'fail') return json({ error: { code: 'invalid_request', message: 'this shim knows chain.submit fail only', param: 'target' } }, 400);
  const created = await forward(new Request(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ next: true }) }));
  const body = (await created.json()) as { rule_id: string };
  return json({ fault_id: body.rule_id, ...rule }, 201);
};
