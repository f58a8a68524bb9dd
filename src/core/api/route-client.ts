import type { z } from 'zod';
import type { Download, UploadInput } from './binary.js';
import type { RouteDefinition } from './route.js';
import type { CallInput, CallOptions, Transport } from './transport.js';

/** A table of routes keyed by action: `{ send: defineRoute({ id: 'wallet.send', ... }) }`. */
export type RouteTable = Record<string, RouteDefinition<any, any, any, any>>;

type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : never;
type Input<D, K extends 'params' | 'query' | 'body'> = D extends { [key in K]: infer S extends z.ZodType } ? z.input<S> : never;

/** One path parameter is passed as its string; several as an object. */
type PathArgs<D> = D extends { params: z.ZodType } ? (true extends IsUnion<keyof Input<D, 'params'>> ? [params: Input<D, 'params'>] : [param: string]) : [];
/** The body (optional when every field is), or the query (always optional), or nothing. */
type PayloadArgs<D> = D extends { upload: object }
  ? [file: UploadInput]
  : D extends { body: z.ZodType }
    ? {} extends Input<D, 'body'>
      ? [body?: Input<D, 'body'>]
      : [body: Input<D, 'body'>]
    : D extends { query: z.ZodType }
      ? [query?: Partial<Input<D, 'query'>>]
      : [];
/** Per-call options (the Idempotency-Key) on POSTs. */
type OptionArgs<D> = D extends { method: 'POST' } ? [options?: CallOptions] : [];
/** What the call resolves with: bytes on binary routes, nothing on 204, else the response body. */
type Result<D> = D extends { binary: true } ? Download : D extends { status: 204 } ? void : D extends { response: infer S extends z.ZodType } ? z.output<S> : unknown;

/** The client method derived from one route. */
export type RouteMethod<D> = (...args: [...PathArgs<D>, ...PayloadArgs<D>, ...OptionArgs<D>]) => Promise<Result<D>>;

/** The client derived from a route table: one method per route, named by its key (the route id's action). */
export type ClientOf<T extends RouteTable> = { [K in keyof T]: RouteMethod<T[K]> };

/** The `{name}` placeholders of a route path, in order. */
function pathParameters(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
}

/**
 * Builds the client of a route table over a transport. Arguments are taken in the order the
 * derived type declares: path parameter(s), then body or query, then options on POSTs.
 */
export function buildClient<T extends RouteTable>(table: T, transport: Transport): ClientOf<T> {
  const client: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const [action, route] of Object.entries(table)) {
    const names = pathParameters(route.path);
    client[action] = (...args) => {
      let next = 0;
      let params: Record<string, string> | undefined;
      if (names.length === 1) params = { [names[0]!]: args[next++] as string };
      else if (names.length > 1) params = args[next++] as Record<string, string>;
      const payload = route.upload || route.body || route.query ? args[next++] : undefined;
      const options = route.method === 'POST' ? (args[next] as CallOptions | undefined) : undefined;
      const input: CallInput = {};
      if (params) input.params = params;
      if (route.upload || route.body) input.body = payload;
      else input.query = (payload ?? {}) as Record<string, unknown>;
      return transport(route, input, options);
    };
  }
  return client as ClientOf<T>;
}
