import type { CallInput, CallOptions, Transport } from './transport.js';
import type { RouteDefinition } from './route.js';

/** Calls a route through a transport, typed by the route's response schema. */
export type TypedCall = <T>(route: RouteDefinition<any, any, any, T>, input?: CallInput, options?: CallOptions) => Promise<T>;

/** Wraps a transport as a {@link TypedCall}. */
export function typedCall(transport: Transport): TypedCall {
  return <T>(route: RouteDefinition<any, any, any, T>, input: CallInput = {}, options?: CallOptions) =>
    transport(route as RouteDefinition, input, options) as Promise<T>;
}
