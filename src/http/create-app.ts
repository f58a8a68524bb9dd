import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { RouteDefinition } from '../core/api/route.js';
import { ApiError } from '../core/shared/api-error.js';
import type { Runtime } from '../runtime/create-runtime.js';
import { errorResponse, jsonResponse } from './json-response.js';
import { withMultipartFile } from './multipart-upload.js';
import { openApiDocument } from './openapi.js';

/** `Bearer <token>` → token; anything else → null (answered as a missing key). */
function bearerOf(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match ? match[1]! : null;
}

/** Query parameters as strings, or arrays of strings when repeated. */
function queryOf(c: Context): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, values] of Object.entries(c.req.queries())) query[name] = values.length === 1 ? values[0]! : values;
  return query;
}

/** The JSON body, undefined when empty. @throws ApiError 400 invalid_request on malformed JSON */
async function jsonBodyOf(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError('invalid_request', 'the request body is not valid JSON');
  }
}

/** The body of a `rawBody` route: its exact bytes, and the form fields or JSON they hold. */
async function rawBodyOf(c: Context): Promise<{ raw: Uint8Array; parsed: unknown }> {
  const raw = new Uint8Array(await c.req.arrayBuffer());
  const text = new TextDecoder().decode(raw);
  if (/^application\/x-www-form-urlencoded\b/i.test(c.req.header('content-type') ?? '')) {
    return { raw, parsed: Object.fromEntries(new URLSearchParams(text)) };
  }
  if (text.trim() === '') return { raw, parsed: undefined };
  try {
    return { raw, parsed: JSON.parse(text) };
  } catch {
    throw new ApiError('invalid_request', 'the request body is not valid JSON');
  }
}

/**
 * The HTTP shim: a Hono app that translates requests to the runtime's dispatcher and back, and
 * nothing more. Every answer, including unknown routes, oversized bodies and crashes, is JSON in
 * the DECISIONS.md shape; no stack trace leaves the process.
 */
export function createApp(runtime: Runtime): Hono {
  const app = new Hono();
  const limit = (maxSize: number) =>
    bodyLimit({ maxSize, onError: () => errorResponse(new ApiError('payload_too_large', `request body over ${maxSize} bytes`)) });
  app.get('/openapi.json', () => jsonResponse(200, openApiDocument(runtime.routes(), runtime.config)));

  const handler = (route: RouteDefinition) => async (c: Context) => {
    try {
      const dispatch = (body: unknown, rawBody?: Uint8Array) =>
        runtime.dispatch({
          routeId: route.id,
          params: c.req.param() as Record<string, string>,
          query: queryOf(c),
          body,
          bearer: bearerOf(c.req.header('authorization')),
          idempotencyKey: c.req.header('idempotency-key') ?? null,
          headers: c.req.header(),
          signal: c.req.raw.signal,
          ...(rawBody ? { rawBody } : {}),
        });
      const raw = route.rawBody ? await rawBodyOf(c) : undefined;
      // An upload streams from the multipart part straight into the handler.
      const result = route.upload
        ? await withMultipartFile(c.req.raw, route.upload.field, dispatch)
        : raw
          ? await dispatch(raw.parsed, raw.raw)
          : await dispatch(route.body ? await jsonBodyOf(c) : undefined);
      return jsonResponse(result.status, result.body, result.headers);
    } catch (error) {
      if (error instanceof ApiError) return errorResponse(error);
      throw error;
    }
  };
  for (const route of runtime.routes()) {
    const maxBytes = Math.max(runtime.maxBodyBytes, route.maxBodyBytes ?? 0);
    const path = route.path.replace(/\{(\w+)\}/g, ':$1');
    // Uploads have no JSON body limit: their handler caps the bytes it stores (413, nothing kept).
    if (route.upload) app.on(route.method, path, handler(route));
    else app.on(route.method, path, limit(maxBytes), handler(route));
  }
  app.use('*', limit(runtime.maxBodyBytes));

  for (const edge of runtime.edges()) {
    if (edge.kind !== 'http') continue;
    const answer = (c: Context) => edge.fetch(c.req.raw);
    app.all(edge.prefix, answer);
    app.all(`${edge.prefix.replace(/\/$/, '')}/*`, answer);
  }

  app.notFound(() => errorResponse(new ApiError('not_found', 'no such route')));
  app.onError(() => errorResponse(new ApiError('internal_error', 'internal error')));
  return app;
}
