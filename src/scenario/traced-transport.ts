import { isBinaryBody, uploadedFileOf, type Download } from '../core/api/binary.js';
import type { CallInput, Transport } from '../core/api/transport.js';
import { ApiError } from '../core/shared/api-error.js';
import { jsonRoundTrip } from '../core/shared/json.js';
import type { Runtime } from '../runtime/create-runtime.js';
import { unwrap } from '../runtime/in-process-transport.js';

/** One call a scenario made, as the trace keeps it. */
export interface CallRecord {
  /** Who called: an agent's name, `world`, `invariant` or `runner`. */
  caller: string;
  /** Route id (`wallet.send`). */
  route: string;
  input: CallInput;
  /** HTTP status the call answered (the route's success status, or the error's). */
  status: number;
  /** The answer on success (a download without its bytes). */
  result?: unknown;
  /** The answer on success as JSON text, when it was serialised already (it stands for `result`). */
  resultJson?: string;
  /** The error on failure. */
  error?: { code: string; message: string; param?: string };
}

/** JSON round trip, so the call gets (and the trace keeps) exactly what the wire would carry. */
function wire<T>(value: T): T {
  return value === undefined ? value : jsonRoundTrip(value);
}

function isDownload(value: unknown): value is Download {
  return value !== null && typeof value === 'object' && (value as Partial<Download>).bytes instanceof Uint8Array;
}

/**
 * A transport that calls the runtime in-process, as `runtime.agent(key)` does, and hands every
 * call with its outcome to `record`, and waits for it, before answering it.
 */
export function tracedTransport(runtime: Runtime, bearer: string | null, caller: string, record: (call: CallRecord) => Promise<void>): Transport {
  return async (route, input, options) => {
    const upload = route.upload ? uploadedFileOf(input.body) : undefined;
    const query = wire(input.query);
    const body = route.upload ? undefined : wire(input.body);
    const traced: CallInput = {};
    if (input.params) traced.params = input.params;
    if (query !== undefined && Object.keys(query).length > 0) traced.query = query;
    if (body !== undefined) traced.body = body;
    if (upload) traced.body = { filename: upload.filename, content_type: upload.contentType };
    try {
      const answer = await runtime.dispatch({
        routeId: route.id,
        params: input.params ?? {},
        query: query ?? {},
        body: route.upload ? upload : body,
        bearer,
        idempotencyKey: options?.idempotencyKey ?? null,
      });
      if (answer.status < 400 && answer.status !== 204 && !isBinaryBody(answer.body)) {
        // One serialisation serves both the caller's copy (the wire's JSON round trip) and the trace.
        const json = JSON.stringify(answer.body);
        await record({ caller, route: route.id, input: traced, status: route.status, resultJson: json });
        return JSON.parse(json) as unknown;
      }
      const result = await unwrap(answer);
      const kept = isDownload(result) ? { content_type: result.content_type, filename: result.filename, size: result.size } : result;
      await record({ caller, route: route.id, input: traced, status: route.status, ...(kept === undefined ? {} : { result: kept }) });
      return result;
    } catch (error) {
      if (error instanceof ApiError) {
        await record({ caller, route: route.id, input: traced, status: error.status, error: { code: error.code, message: error.message, ...(error.param === undefined ? {} : { param: error.param }) } });
      }
      throw error;
    }
  };
}
