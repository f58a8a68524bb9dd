import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { UploadedFile } from '../core/api/binary.js';
import { ApiError } from '../core/shared/api-error.js';
import type { Runtime } from '../runtime/create-runtime.js';
import { ApiEdge, errorAnswer, isSimPath, JSON_TYPE, methodNotAllowed, NOT_FOUND, type ApiAnswer, type ApiSource } from './api-edge.js';
import { MAX_HEADER_BYTES } from './client-errors.js';
import { batchedNodeWriter, toWebResponse, writeNodeAnswer, writeWebResponse } from './answers.js';
import { withMultipartFile } from './multipart-upload.js';
import { openApiDocument } from './openapi.js';
import { closeGently, readNodeBody, readWebBody, refuseAnnounced, refuseAnnouncedWeb } from './request-body.js';
import { noteRequest } from './request-note.js';
import { operationsPage, OPERATIONS_PATHS } from './operations-pages.js';
import type { ServiceMetrics } from './service-metrics.js';

/** The HTTP layer of a runtime, for both ways in. */
export interface HttpApp {
  /** Answers a WHATWG `Request` in-process (`runtime.fetch`), exactly as the server would. */
  fetch(request: Request): Promise<Response>;
  /** A `node:http` request listener answering the same requests straight from the socket. */
  handle(request: IncomingMessage, response: ServerResponse): void;
}

/** Whether `path` is `prefix` or below it (`/pay` takes `/pay/x`, not `/payment`). */
export function underPrefix(path: string, prefix: string): boolean {
  const base = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  return path === base || path.startsWith(`${base}/`);
}

/** A request target of Node's parser (origin-form, or absolute-form from a proxy) split into path and query. */
function splitTarget(target: string): { path: string; search: string } {
  const mark = target.indexOf('?');
  const path = mark < 0 ? target : target.slice(0, mark);
  // Plain paths are taken as they are; anything a WHATWG URL would rewrite (dot segments,
  // characters it percent-encodes, backslashes, absolute-form) goes through the URL parser, so
  // the socket and `runtime.fetch` see the same path.
  if (SAFE_PATH.test(path) && !path.includes('/.')) return { path, search: mark < 0 ? '' : target.slice(mark + 1) };
  try {
    const url = target.charCodeAt(0) === 47 /* / */ ? new URL(`http://edge.invalid${target}`) : new URL(target);
    return { path: url.pathname, search: url.search.slice(1) };
  } catch {
    return { path: target, search: '' };
  }
}
const SAFE_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;

const SIGNAL = Symbol('agent-services connection signal');

/**
 * The signal of a connection, aborted when its socket closes. One per connection rather than per
 * request: an HTTP/1.1 connection carries one request at a time, so its closing is the caller of
 * the request in flight going away, and keep-alive connections do not pay for a new
 * AbortController (and the dispatcher for a new combined signal) on every request.
 */
function connectionSignal(socket: Socket & { [SIGNAL]?: AbortSignal }): AbortSignal {
  let signal = socket[SIGNAL];
  if (!signal) {
    const controller = new AbortController();
    signal = socket[SIGNAL] = controller.signal;
    if (socket.destroyed) controller.abort(new Error('the client went away'));
    else socket.once('close', () => controller.abort(new Error('the client went away')));
  }
  return signal;
}

/** An API request read from a Node `IncomingMessage`. */
class NodeSource implements ApiSource {
  constructor(
    private readonly request: IncomingMessage,
    private readonly response: ServerResponse,
  ) {}

  header(name: string): string | undefined {
    const value = this.request.headers[name];
    return typeof value === 'string' || value === undefined ? value : value.join(', ');
  }

  headers(): Record<string, string> {
    const headers = this.request.headers;
    // Node joins repeated headers into one string, except Set-Cookie (an array; rare in requests).
    if (headers['set-cookie'] === undefined) return headers as Record<string, string>;
    return { ...(headers as Record<string, string>), 'set-cookie': headers['set-cookie'].join(', ') };
  }

  signal(): AbortSignal {
    return connectionSignal(this.request.socket);
  }

  body(limit: number): Promise<Uint8Array> {
    return readNodeBody(this.request, limit);
  }

  announcedOver(limit: number): Promise<ApiError | undefined> {
    return Promise.resolve(refuseAnnounced(this.request, limit));
  }

  upload<T extends { status: number }>(field: string, limit: number, handle: (file: UploadedFile | undefined) => Promise<T>): Promise<T> {
    const { request, response } = this;
    // A body refused mid-way: what still comes is dropped as it arrives until the connection
    // closes, after whatever answer is given (the 413, or the upload's own once it was kept).
    const refuse = () => {
      request.resume();
      closeGently(request);
      if (!response.headersSent) response.setHeader('connection', 'close');
    };
    return withMultipartFile({ stream: request, contentType: this.header('content-type'), limit, refuse }, field, handle);
  }
}

/** An API request read from a WHATWG `Request`. */
class WebSource implements ApiSource {
  constructor(private readonly request: Request) {}

  header(name: string): string | undefined {
    return this.request.headers.get(name) ?? undefined;
  }

  headers(): Record<string, string> {
    return Object.fromEntries(this.request.headers);
  }

  signal(): AbortSignal {
    return this.request.signal;
  }

  body(limit: number): Promise<Uint8Array> {
    return readWebBody(this.request, limit);
  }

  announcedOver(limit: number): Promise<ApiError | undefined> {
    return refuseAnnouncedWeb(this.request, limit);
  }

  upload<T extends { status: number }>(field: string, limit: number, handle: (file: UploadedFile | undefined) => Promise<T>): Promise<T> {
    const stream = this.request.body ? Readable.fromWeb(this.request.body as unknown as NodeReadableStream<Uint8Array>) : Readable.from([]);
    // A body refused mid-way is cancelled: in process there is no connection to keep readable.
    return withMultipartFile({ stream, contentType: this.header('content-type'), limit, refuse: () => stream.destroy() }, field, handle);
  }
}

/**
 * The HTTP layer of a runtime. The areas' http edges (`runtime.edges()`) answer the paths under
 * their prefixes, before anything else. Requests for the route table (`/v1`, `/_sim`, `/files`, ...) are
 * answered by the {@link ApiEdge} straight from whichever side they come in on: `node:http`'s
 * request and response objects on the server (no WHATWG objects built per call), or the WHATWG
 * `Request` of `runtime.fetch`. The rest (the edges, such as the wallet's hosted pay pages on
 * `/pay`, `/openapi.json`, unknown paths) is WHATWG code, reached from the socket through a bridge built only
 * for those requests. Every answer, including unknown routes (404), known paths with another
 * method (405 with `Allow`), bodies that are not JSON (415), oversized bodies (413) and crashes
 * (500), is JSON in the DECISIONS.md shape; no stack trace leaves the process.
 */
export function createApp(runtime: Runtime, options: { metrics?: ServiceMetrics } = {}): HttpApp {
  const api = new ApiEdge(runtime);
  const writeAnswer = batchedNodeWriter();
  const mounts = runtime.edges().flatMap((edge) => (edge.kind === 'http' ? [edge] : []));
  let openApi: { baseUrl: string; text: string } | undefined;

  const mountFor = (path: string) => {
    for (const mount of mounts) if (underPrefix(path, mount.prefix)) return mount;
    return undefined;
  };

  /** `/openapi.json` (made once per base URL), or a 404; any throw is a 500. */
  const page = async (request: Request, path: string): Promise<Response> => {
    const head = request.method === 'HEAD';
    try {
      if (OPERATIONS_PATHS.has(path)) return await operationsPage(runtime, request, path, options.metrics);
      if (path === '/openapi.json') {
        if (request.method !== 'GET' && !head) return toWebResponse(methodNotAllowed(request.method, 'GET, HEAD'), false);
        const baseUrl = runtime.config.baseUrl;
        if (openApi?.baseUrl !== baseUrl) {
          const routes = runtime.mode === 'live' ? runtime.routes().filter((route) => !isSimPath(route.path)) : runtime.routes();
          openApi = { baseUrl, text: JSON.stringify(openApiDocument(routes, runtime.config, { adminAccess: runtime.adminAccess })) };
        }
        return toWebResponse({ status: 200, headers: { 'content-type': JSON_TYPE }, body: openApi.text }, head);
      }
      return toWebResponse(NOT_FOUND, head);
    } catch (error) {
      return toWebResponse(failure(error, path), head);
    }
  };

  /** A mounted edge's answer; a throw is a 500. */
  const callEdge = async (mount: { fetch(request: Request): Promise<Response> }, request: Request, path: string): Promise<Response> => {
    try {
      return await mount.fetch(request);
    } catch (error) {
      return toWebResponse(failure(error, path), request.method === 'HEAD');
    }
  };

  /** The WHATWG side of the bridge: a mounted edge, or a page. */
  const web = (request: Request, path: string): Promise<Response> => {
    const mount = mountFor(path);
    return mount ? callEdge(mount, request, path) : page(request, path);
  };

  return {
    async fetch(request) {
      const url = new URL(request.url);
      const path = url.pathname;
      const head = request.method === 'HEAD';
      // What the server's parser refuses (over 16 KB of request line and headers), refused here too.
      if (headBytes(request, url) > MAX_HEADER_BYTES) return toWebResponse(errorAnswer(new ApiError('headers_too_large', `the request line and headers are over ${MAX_HEADER_BYTES} bytes`)), head);
      if (!mountFor(path)) {
        const lookup = api.match(request.method, path);
        if (lookup.kind === 'route') return toWebResponse(await api.answer(lookup.route, lookup.params, url.search.slice(1), new WebSource(request)), head);
        if (lookup.kind === 'method') return toWebResponse(methodNotAllowed(request.method, lookup.allow), head);
      }
      let limited: Request;
      try {
        limited = await withBodyLimit(request, mountFor(path)?.maxBodyBytes ?? runtime.maxBodyBytes);
      } catch (error) {
        return toWebResponse(failure(error, path), head);
      }
      return web(limited, path);
    },

    handle(request, response) {
      const method = request.method ?? 'GET';
      const head = method === 'HEAD';
      const { path, search } = splitTarget(request.url ?? '/');
      if (!mountFor(path)) {
        const lookup = api.match(method, path);
        if (lookup.kind === 'route') {
          const route = lookup.route.path;
          api.answer(lookup.route, lookup.params, search, new NodeSource(request, response)).then(
            (answer) => {
              noteRequest(response, route, answer.agentId ?? null);
              writeAnswer(response, answer, head);
            },
            () => response.destroy(),
          );
          return;
        }
        if (lookup.kind === 'method') {
          writeNodeAnswer(response, methodNotAllowed(method, lookup.allow), head);
          return;
        }
      }
      const mount = mountFor(path);
      noteRequest(response, mount ? mount.prefix : OPERATIONS_PATHS.has(path) || path === '/openapi.json' ? path : null);
      webRequestOf(request, response, runtime, mount?.maxBodyBytes ?? runtime.maxBodyBytes)
        .then((webRequest) => web(webRequest, path))
        .then(
          (answer) => writeWebResponse(response, answer, head),
          (error: unknown) => writeNodeAnswer(response, failure(error, path), head),
        )
        .catch(() => response.destroy());
    },
  };
}

/** About the bytes a request's line and headers take on the wire (what Node's `maxHeaderSize` counts). */
function headBytes(request: Request, url: URL): number {
  let size = request.method.length + url.pathname.length + url.search.length + 12;
  request.headers.forEach((value, name) => {
    size += name.length + value.length + 4;
  });
  return size;
}

/** The answer of something thrown outside the dispatcher: its own error, or a logged 500. */
function failure(error: unknown, path: string): ApiAnswer {
  if (error instanceof ApiError) return errorAnswer(error);
  process.stderr.write(`internal error in the HTTP edge (${path}): ${(error as Error)?.stack ?? String(error)}\n`);
  return errorAnswer(new ApiError('internal_error', 'internal error'));
}

/** A request whose body has been read under `limit` (a WHATWG body cannot be capped as it streams). @throws ApiError 413 */
async function withBodyLimit(request: Request, limit: number): Promise<Request> {
  if (!request.body) return request;
  const body = await readWebBody(request, limit);
  return new Request(request.url, { method: request.method, headers: request.headers, body, signal: request.signal });
}

/**
 * A WHATWG `Request` for a Node request that is not an API call: the URL from the Host header
 * (the listen address when it is unusable), every header, the body read under `limit` (the
 * edge's, else the runtime's), and a signal aborted when the client goes away before the answer is complete.
 * @throws ApiError 413 payload_too_large
 */
async function webRequestOf(request: IncomingMessage, response: ServerResponse, runtime: Runtime, limit: number): Promise<Request> {
  const target = request.url ?? '/';
  let url: URL;
  try {
    url = target.charCodeAt(0) === 47 ? new URL(`http://${request.headers.host ?? 'localhost'}${target}`) : new URL(target);
  } catch {
    url = new URL(target.charCodeAt(0) === 47 ? target : '/', runtime.config.baseUrl);
  }
  const headers = new Headers();
  const raw = request.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i]!, raw[i + 1]!);
    } catch {
      // A header WHATWG refuses (a name or value Node let through) is left out.
    }
  }
  const method = request.method ?? 'GET';
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  const hasBody = method !== 'GET' && method !== 'HEAD';
  const body = hasBody ? await readNodeBody(request, limit) : undefined;
  try {
    return new Request(url, { method, headers, signal: controller.signal, ...(body && body.byteLength > 0 ? { body } : {}) });
  } catch {
    // A method WHATWG forbids (CONNECT, TRACE, TRACK): nothing here answers it.
    throw new ApiError('not_found', 'no such route');
  }
}
