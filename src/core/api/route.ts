import type { z } from 'zod';

/** HTTP methods the API uses. */
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * Who may call a route: `agent` needs an agent's API key, `public` needs nothing, `admin` is the
 * simulation control plane (open in simulation unless an admin token is configured).
 */
export type RouteAuth = 'agent' | 'public' | 'admin';

/**
 * One endpoint, described once: the HTTP shim, the in-process dispatcher, the HTTP client and the
 * OpenAPI document are all derived from this table, so they cannot disagree.
 */
export interface RouteDefinition<P = unknown, Q = unknown, B = unknown, R = unknown> {
  /** Stable identifier, `<area>.<action>`. */
  id: string;
  method: HttpMethod;
  /** Path with `{name}` placeholders, e.g. `/v1/agent/{handle}`. */
  path: string;
  auth: RouteAuth;
  /** OpenAPI tag (the area). */
  tag: string;
  summary: string;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** Response body schema; absent for 204 and for binary answers. */
  response?: z.ZodType<R>;
  /** The handler answers a `BinaryBody` (file bytes), streamed as they are, not JSON. */
  binary?: true;
  /** Largest request body this route accepts, in bytes, when above the runtime's default. */
  maxBodyBytes?: number;
  /**
   * A multipart/form-data upload: the handler's `body` is a `ReceivedUpload` (binary.ts) whose
   * bytes stream from the part named `field`; no JSON body, no JSON body limit (the handler
   * enforces its own size limit while it stores the bytes).
   */
  upload?: { field: string };
  /** Success status: 201 for creates, 204 for deletes, 200 otherwise (DECISIONS.md). */
  status: 200 | 201 | 204;
}

/** Parsed inputs a handler receives. */
export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

/** Who is calling: the authenticated agent, or null on public and admin routes. */
export interface CallContext {
  agentId: string | null;
}

/** The service function behind a route. */
export type RouteHandler<P, Q, B, R> = (context: CallContext, input: RouteInput<P, Q, B>) => R | Promise<R>;

/** A route together with its handler, ready to dispatch. */
export interface BoundRoute {
  definition: RouteDefinition;
  handle: RouteHandler<unknown, unknown, unknown, unknown>;
}

/** Declares a route, keeping its schema types for {@link bindRoute}. */
export function defineRoute<P = undefined, Q = undefined, B = undefined, R = undefined>(
  definition: RouteDefinition<P, Q, B, R>,
): RouteDefinition<P, Q, B, R> {
  return definition;
}

/** Attaches a handler to a route definition, type-checked against the route's schemas. */
export function bindRoute<P, Q, B, R>(definition: RouteDefinition<P, Q, B, R>, handle: RouteHandler<P, Q, B, R>): BoundRoute {
  return { definition, handle } as unknown as BoundRoute;
}

/** Input type of a route, for clients. */
export type InputOf<D> = D extends RouteDefinition<infer P, infer Q, infer B, unknown> ? RouteInput<P, Q, B> : never;
/** Response type of a route, for clients. */
export type OutputOf<D> = D extends RouteDefinition<unknown, unknown, unknown, infer R> ? R : never;

/** Fills `{name}` placeholders of a route path with URL-encoded values. */
export function fillPath(path: string, params: Record<string, string> | undefined): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined) throw new TypeError(`missing path parameter ${name}`);
    return encodeURIComponent(value);
  });
}

/** The calling agent of an authenticated route (the dispatcher guarantees one). */
export function callerOf(context: CallContext): string {
  if (!context.agentId) throw new Error('route needs an authenticated agent');
  return context.agentId;
}
