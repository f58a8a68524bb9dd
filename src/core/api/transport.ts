import type { RouteDefinition } from './route.js';

/** Per-call options. */
export interface CallOptions {
  /** Sent as the `Idempotency-Key` header on POST requests. */
  idempotencyKey?: string;
}

/** Inputs of one call in transport-neutral form. */
export interface CallInput {
  params?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
}

/**
 * Carries one call to an implementation of the API: in-process, through `runtime.fetch`, or over
 * HTTP. Resolves with the response body; rejects with `ApiError` exactly as the HTTP shim answers.
 */
export type Transport = (route: RouteDefinition, input: CallInput, options?: CallOptions) => Promise<unknown>;
