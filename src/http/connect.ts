import { filenameFromDisposition, type UploadInput } from '../core/api/binary.js';
import { fillPath } from '../core/api/route.js';
import { createAgentClient, createSimClient, type AgentClient, type SimClient, type Transport } from '../runtime/clients.js';
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
    let payload: string | FormData | undefined;
    if (route.upload) {
      payload = uploadForm(route.upload.field, input.body as UploadInput);
    } else if (hasBody) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(input.body);
    }
    const response = await send(new Request(url, { method: route.method, headers, ...(payload === undefined ? {} : { body: payload }) }));
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

/** The multipart/form-data body of an upload: one part `field` holding the file. */
function uploadForm(field: string, upload: UploadInput | undefined): FormData {
  const form = new FormData();
  if (!upload || !(upload.data instanceof Uint8Array || upload.data instanceof Blob)) return form;
  const type = upload.content_type || 'application/octet-stream';
  const blob = upload.data instanceof Blob && upload.data.type === type ? upload.data : new Blob([upload.data], { type });
  form.append(field, blob, upload.filename);
  return form;
}

/** An {@link AgentClient} over HTTP: the same calls as in-process, against any server. */
export function connect(options: ConnectOptions): AgentClient {
  return createAgentClient(httpTransport(options));
}

/** A control-plane client over HTTP; `apiKey` carries the admin token when the server has one. */
export function connectSim(options: ConnectOptions): SimClient {
  return createSimClient(httpTransport(options));
}
