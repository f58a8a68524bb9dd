import { filenameFromDisposition } from '../core/api/binary.js';
import { fillPath } from '../core/api/route.js';
import { createAgentClient, createSimClient, type AgentClient, type SimClient, type Transport } from '../core/client.js';
import { ApiError } from '../core/shared/api-error.js';

/** How to reach a server. */
export interface ConnectOptions {
  /** `{base_url}`, e.g. `http://127.0.0.1:8787`. */
  baseUrl: string;
  /** The agent's API key (or, for {@link connectSim}, the admin token). */
  apiKey?: string;
  /** A fetch implementation (default: the global fetch); `runtime.fetch` works too. */
  fetch?: (request: Request) => Promise<Response>;
}

/** A transport that speaks HTTP to any implementation of the API. */
export function httpTransport(options: ConnectOptions): Transport {
  const base = options.baseUrl.replace(/\/$/, '');
  const send = options.fetch ?? ((request: Request) => fetch(request));
  return async (route, input, callOptions) => {
    const url = new URL(base + fillPath(route.path, input.params));
    for (const [name, value] of Object.entries(input.query ?? {})) {
      if (value === undefined || value === null) continue;
      for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(item));
    }
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    if (callOptions?.idempotencyKey !== undefined) headers['idempotency-key'] = callOptions.idempotencyKey;
    const hasBody = input.body !== undefined && route.method !== 'GET' && route.method !== 'DELETE';
    if (hasBody) headers['content-type'] = 'application/json';
    const response = await send(new Request(url, { method: route.method, headers, ...(hasBody ? { body: JSON.stringify(input.body) } : {}) }));
    if (response.status === 204) return undefined;
    if (response.ok && route.binary) {
      const bytes = new Uint8Array(await response.arrayBuffer());
      return {
        content_type: response.headers.get('content-type') ?? 'application/octet-stream',
        filename: filenameFromDisposition(response.headers.get('content-disposition')),
        size: bytes.byteLength,
        bytes,
      };
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw new ApiError('internal_error', `the server answered ${response.status} with a body that is not JSON`);
    }
    if (response.status >= 400) throw ApiError.fromBody(response.status, body);
    return body;
  };
}

/** An {@link AgentClient} over HTTP: the same calls as in-process, against any server. */
export function connect(options: ConnectOptions): AgentClient {
  return createAgentClient(httpTransport(options));
}

/** A control-plane client over HTTP; `apiKey` carries the admin token when the server has one. */
export function connectSim(options: ConnectOptions): SimClient {
  return createSimClient(httpTransport(options));
}
