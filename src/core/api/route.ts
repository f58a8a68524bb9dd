import type { z } from 'zod';
import type { BinaryBody, ReceivedUpload } from './binary.js';

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
   * bytes stream from the part named `field`; no JSON body. The handler enforces its file's own
   * size limit while it stores the bytes; the edge holds the whole multipart body to
   * `maxBodyBytes`, which an upload route is bound with from its file limit
   * ({@link uploadBodyBytes}), refusing a longer Content-Length at once.
   */
  upload?: { field: string };
  /**
   * The handler receives the exact request bytes as `context.rawBody` (signed provider callbacks
   * verify a signature over them); the body is still parsed by `body` when one is declared.
   */
  rawBody?: true;
  /** Success status: 201 for creates, 204 for deletes, 200 otherwise (DECISIONS.md). */
  status: 200 | 201 | 204;
}

/**
 * Room a multipart body takes beyond its file: boundaries, part headers (16 KiB each at most) and
 * the small fields the upload reader takes (20 of 64 KiB; src/http/multipart-upload.ts).
 */
const MULTIPART_FRAMING_BYTES = 2 * 1024 * 1024;

/** The largest multipart body that can carry a file of `maxFileBytes`: an upload route's `maxBodyBytes`. */
export function uploadBodyBytes(maxFileBytes: number): number {
  return maxFileBytes + MULTIPART_FRAMING_BYTES;
}

/** Parsed inputs a handler receives. */
export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

/** Who is calling and how: the authenticated agent (null on public and admin routes) and the request around it. */
export interface CallContext {
  agentId: string | null;
  /**
   * Aborted when the caller goes away, the runtime closes or the call's {@link deadline} passes;
   * long work and outside calls (runs, fetches, provider calls) stop on it.
   */
  signal: AbortSignal;
  /**
   * When the call's outside work must be done, in milliseconds of the process's monotonic clock
   * (`performance.now()`), or undefined when the runtime sets no `requestTimeoutMs`. Real time, not
   * service time: networks and sandboxes run in real time while a simulated clock may stand still.
   */
  deadline?: number;
  /** Request headers with lower-cased names (empty in-process unless the caller gave some). */
  headers: Readonly<Record<string, string>>;
  /** The exact request body bytes, on routes declared with `rawBody: true`. */
  rawBody?: Uint8Array;
}

/** The service function behind a route. */
export type RouteHandler<P, Q, B, R> = (context: CallContext, input: RouteInput<P, Q, B>) => R | Promise<R>;

/** A route together with its handler, ready to dispatch. */
export interface BoundRoute {
  definition: RouteDefinition;
  handle: RouteHandler<unknown, unknown, unknown, unknown>;
  /**
   * Set by {@link bindStagedRoute}: `handle` makes the route's outside call and answers its
   * {@link DurableStep}, which the dispatcher runs apart.
   */
  staged?: true;
}

/** The effect a staged handler answers once its outside call is done: one or more store transactions. */
export type DurableStep<T> = () => Promise<T>;

/** The parsed value of a route's schema `K`, or undefined when the route has none. */
type Parsed<D, K extends 'params' | 'query' | 'body' | 'response'> = D extends { [key in K]: infer S extends z.ZodType } ? z.output<S> : undefined;

/** What a route's handler receives: parsed params, query and body (an upload's stream on upload routes). */
export type HandlerInput<D> = RouteInput<Parsed<D, 'params'>, Parsed<D, 'query'>, D extends { upload: object } ? ReceivedUpload : Parsed<D, 'body'>>;

/** What a route's handler answers: bytes on binary routes, nothing on 204, else the response schema's value. */
export type HandlerOutput<D> = D extends { binary: true } ? BinaryBody : D extends { status: 204 } ? void : Parsed<D, 'response'>;

/**
 * Declares a route. The literal definition's type is kept whole (schemas, method, status), so the
 * handler's input and output and the derived client's method are typed from it.
 */
export function defineRoute<const D extends RouteDefinition<any, any, any, any>>(definition: D): D {
  return definition;
}

/** Attaches a handler to a route definition, type-checked against the route's schemas. */
export function bindRoute<D extends RouteDefinition<any, any, any, any>>(definition: D, handle: (context: CallContext, input: HandlerInput<D>) => HandlerOutput<D> | Promise<HandlerOutput<D>>): BoundRoute {
  return { definition, handle } as unknown as BoundRoute;
}

/**
 * Attaches a handler whose outside call (a carrier request) comes before its effect: it makes the
 * call and answers the effect as a {@link DurableStep}. The dispatcher runs the step in the
 * Idempotency-Key's durable unit and the call before it, so the unit never waits on the outside
 * call nor repeats it when a store runs the unit again; a call cut by the request's deadline
 * throws before any effect, and the request keeps nothing (504 `upstream_timeout`).
 */
export function bindStagedRoute<D extends RouteDefinition<any, any, any, any>>(definition: D, handle: (context: CallContext, input: HandlerInput<D>) => Promise<DurableStep<HandlerOutput<D>>>): BoundRoute {
  return { definition, handle, staged: true } as unknown as BoundRoute;
}

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
