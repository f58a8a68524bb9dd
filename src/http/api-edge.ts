import { contentDisposition, isBinaryBody, type BinaryBody, type UploadedFile } from '../core/api/binary.js';
import type { DispatchRequest, DispatchResult } from '../core/api/dispatcher.js';
import type { RouteDefinition } from '../core/api/route.js';
import { ApiError } from '../core/shared/api-error.js';
import type { Runtime } from '../runtime/create-runtime.js';
import { isMultipartType, jsonOf, rawBodyOf } from './request-body.js';
import { RouteMatcher, type RouteLookup } from './route-matcher.js';

/**
 * Where the parts of one API request come from: a Node `IncomingMessage` (the server) or a WHATWG
 * `Request` (`runtime.fetch`). Both answer through {@link ApiEdge}, so they cannot disagree.
 */
export interface ApiSource {
  /** A request header by lower-case name, or undefined. */
  header(name: string): string | undefined;
  /** Every request header, lower-cased names (what handlers see as `context.headers`). */
  headers(): Record<string, string>;
  /** Aborted when the caller goes away. */
  signal(): AbortSignal;
  /** The whole body, at most `limit` bytes. @throws ApiError 413 payload_too_large */
  body(limit: number): Promise<Uint8Array>;
  /**
   * The 413 of a Content-Length over `limit` (the connection then closes), read before any of the
   * body; undefined when the length is within it or not given.
   */
  announcedOver(limit: number): Promise<ApiError | undefined>;
  /** Streams a multipart body of at most `limit` bytes into `handle` (see `withMultipartFile`). */
  upload<T extends { status: number }>(field: string, limit: number, handle: (file: UploadedFile | undefined) => Promise<T>): Promise<T>;
}

/** An answer ready to be written: a JSON text, a file to stream, or nothing (204, HEAD). */
export interface ApiAnswer {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: string | BinaryBody | null;
  /** The agent the call acted as (request logs and metrics); absent before authentication. */
  agentId?: string;
}

/** Whether a route path is of the simulation control plane. */
export function isSimPath(path: string): boolean {
  return path === '/_sim' || path.startsWith('/_sim/');
}

/** Content-Type of every JSON answer. */
export const JSON_TYPE = 'application/json; charset=utf-8';
const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': JSON_TYPE });

/** The JSON answer of an ApiError, with its own headers (`Connection: close` on an announced 413) and extra ones (e.g. `Allow`). */
export function errorAnswer(error: ApiError, headers?: Record<string, string>): ApiAnswer {
  const own = error.headers;
  let hasOwn = false;
  for (const _ in own) {
    hasOwn = true;
    break;
  }
  const extra = hasOwn ? { ...own, ...headers } : headers;
  return { status: error.status, headers: extra ? { 'content-type': JSON_TYPE, ...extra } : JSON_HEADERS, body: JSON.stringify(error.toBody()) };
}

/** The 405 of a path that exists without this method. */
export function methodNotAllowed(method: string, allow: string): ApiAnswer {
  return errorAnswer(new ApiError('method_not_allowed', `${method} is not allowed here; allowed: ${allow}`), { allow });
}

/** The 404 of a path that leads nowhere. */
export const NOT_FOUND: ApiAnswer = errorAnswer(new ApiError('not_found', 'no such route'));

/** The answer of a dispatch result, naming the agent it acted as when there was one. */
function answerOf(result: DispatchResult): ApiAnswer {
  const answer = answerWithoutAgent(result);
  if (result.agentId !== undefined) answer.agentId = result.agentId;
  return answer;
}

function answerWithoutAgent(result: DispatchResult): ApiAnswer {
  const extra = result.headers;
  let hasExtra = false;
  for (const _ in extra) {
    hasExtra = true;
    break;
  }
  if (result.status === 204) return { status: 204, headers: extra, body: null };
  const body = result.body;
  if (isBinaryBody(body)) {
    return {
      status: result.status,
      headers: { 'content-type': body.contentType, 'content-length': String(body.size), 'content-disposition': contentDisposition(body.filename), ...extra },
      body,
    };
  }
  return { status: result.status, headers: hasExtra ? { 'content-type': JSON_TYPE, ...extra } : JSON_HEADERS, body: JSON.stringify(body) };
}

/** `Bearer <token>` → token; anything else → null (answered as a missing key). */
function bearerOf(header: string | undefined): string | null {
  if (header === undefined) return null;
  // The common exact form without a regular expression; anything else goes the careful way.
  if (header.startsWith('Bearer ') && header.indexOf(' ', 7) < 0 && header.length > 7) return header.slice(7);
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

const NO_QUERY: Record<string, string | string[]> = Object.freeze({}) as Record<string, string | string[]>;

/** Query parameters as strings, or arrays of strings when repeated (`+` is a space, as in forms). */
export function queryOf(search: string): Record<string, string | string[]> {
  if (search === '') return NO_QUERY;
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(search)) {
    const seen = query[name];
    query[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return query;
}

/**
 * The API edge: the route table compiled into a {@link RouteMatcher}, and the translation of one
 * HTTP request into a `runtime.dispatch` call and of its result back into an answer. Bodies are
 * read only for routes that take one, under the route's limit; uploads stream. Every failure is a
 * DECISIONS.md error answer; nothing here throws.
 */
export class ApiEdge {
  private readonly matcher: RouteMatcher;
  private readonly limits = new Map<RouteDefinition, number>();

  constructor(private readonly runtime: Runtime) {
    // DECISIONS.md: live mode keeps no simulation plane; /_sim is not a path there (404 even
    // with the admin token). In-process operator tools (the dashboard) still reach it.
    const routes = runtime.mode === 'live' ? runtime.routes().filter((route) => !isSimPath(route.path)) : runtime.routes();
    this.matcher = new RouteMatcher(routes);
    for (const route of routes) this.limits.set(route, Math.max(runtime.maxBodyBytes, route.maxBodyBytes ?? 0));
  }

  /** The route of a method and path of the table, a 405, or nothing. */
  match(method: string, path: string): RouteLookup {
    return this.matcher.match(method, path);
  }

  /** Answers one request for a matched route; never rejects. */
  async answer(route: RouteDefinition, params: Record<string, string>, search: string, source: ApiSource): Promise<ApiAnswer> {
    try {
      const request: DispatchRequest = {
        routeId: route.id,
        params,
        query: queryOf(search),
        body: undefined,
        bearer: bearerOf(source.header('authorization')),
        idempotencyKey: source.header('idempotency-key') ?? null,
        headers: source.headers(),
        signal: source.signal(),
      };
      if (route.upload) return answerOf(await this.upload(route.upload.field, this.limits.get(route)!, request, source));
      if (route.rawBody) {
        const raw = await source.body(this.limits.get(route)!);
        request.rawBody = raw;
        request.body = rawBodyOf(raw, source.header('content-type'));
      } else if (route.body) {
        request.body = jsonOf(await source.body(this.limits.get(route)!), source.header('content-type'));
      }
      return answerOf(await this.runtime.dispatch(request));
    } catch (error) {
      if (error instanceof ApiError) return errorAnswer(error);
      process.stderr.write(`internal error in the HTTP edge (${route.id}): ${(error as Error)?.stack ?? String(error)}\n`);
      return errorAnswer(new ApiError('internal_error', 'internal error'));
    }
  }

  /**
   * An upload streams from its multipart part straight into the handler. A body that is not
   * multipart/form-data is dispatched without a file, so that authentication answers first
   * (401 before the body is looked at); the dispatcher's "no file" answer then becomes a 415. A
   * Content-Length over the route's limit is refused first, at once (DECISIONS.md).
   * @throws ApiError 413 payload_too_large
   */
  private async upload(field: string, limit: number, request: DispatchRequest, source: ApiSource): Promise<DispatchResult> {
    const announced = await source.announcedOver(limit);
    if (announced) throw announced;
    const dispatch = (file: UploadedFile | undefined) => this.runtime.dispatch({ ...request, body: file });
    if (isMultipartType(source.header('content-type'))) return source.upload(field, limit, dispatch);
    const result = await dispatch(undefined);
    const error = (result.body as { error?: { code?: string; param?: string } } | null)?.error;
    if (result.status === 400 && error?.code === 'invalid_request' && error.param === field) {
      const refused = new ApiError('unsupported_media_type', `an upload is sent as multipart/form-data with the file in the part named "${field}"`);
      return { status: refused.status, body: refused.toBody(), headers: {} };
    }
    return result;
  }
}
