import type { Dispatcher, DispatchRequest, DispatchResult } from '../core/api/dispatcher.js';
import { collectDownload, isBinaryBody, uploadedFileOf } from '../core/api/binary.js';
import type { Transport } from '../core/api/transport.js';
import { ApiError } from '../core/shared/api-error.js';
import { jsonRoundTrip } from '../core/shared/json.js';

/** JSON round trip, so in-process callers get exactly what the wire would carry. */
function wire<T>(value: T): T {
  return value === undefined ? value : jsonRoundTrip(value);
}

/** Turns a dispatch result into a client result: the body (bytes as a Download), or a thrown ApiError. */
export async function unwrap(result: DispatchResult): Promise<unknown> {
  return unwrapNow(result);
}

/**
 * {@link unwrap} without an async frame: the body at once (a promise only for bytes), or a throw.
 * The transport calls it as the handler of the dispatch, so a JSON answer costs no extra promise.
 */
function unwrapNow(result: DispatchResult): unknown {
  if (result.status >= 400) throw ApiError.fromBody(result.status, result.body);
  if (isBinaryBody(result.body)) return collectDownload(result.body);
  return result.status === 204 ? undefined : wire(result.body);
}

/**
 * A transport that calls the dispatcher directly, with no HTTP in between; with `actingAgentId`
 * it acts as that agent without its key (operator tools only).
 */
export function inProcessTransport(dispatcher: Dispatcher, bearer: string | null, actingAgentId?: string): Transport {
  return (route, input, options) => {
    let request: DispatchRequest;
    try {
      request = {
        routeId: route.id,
        params: input.params ?? {},
        query: wire(input.query) ?? {},
        // An upload's bytes go as they are (a stream), not through the JSON round trip.
        body: route.upload ? uploadedFileOf(input.body) : wire(input.body),
        bearer,
        idempotencyKey: options?.idempotencyKey ?? null,
      };
    } catch (error) {
      // What JSON cannot carry (a bigint, a cycle) fails the call, as it would over the wire.
      return Promise.reject(error);
    }
    if (actingAgentId !== undefined) request.actingAgentId = actingAgentId;
    // A handler on the dispatch rather than an async frame: every in-process call passes here.
    return dispatcher.dispatch(request).then(unwrapNow);
  };
}
