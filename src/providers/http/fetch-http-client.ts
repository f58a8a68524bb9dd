import type { HttpClient, OutboundRequest, OutboundResponse } from '../../core/ports/http-client.js';
import { pinnedRequest } from './pinned-request.js';
import { timeoutSignal } from './timeout-signal.js';

/**
 * {@link HttpClient} over the platform's `fetch`, with a hard timeout and no redirects followed; a
 * request with an `address` goes to that address over node:http(s) (fetch cannot pin one).
 */
export class FetchHttpClient implements HttpClient {
  /** @throws Error when the request got no answer within `timeoutMs`, its signal aborted or the connection failed */
  async request(request: OutboundRequest): Promise<OutboundResponse> {
    if (request.address !== undefined) return pinnedRequest({ ...request, address: request.address });
    const timeout = timeoutSignal(request.timeoutMs);
    try {
      const response = await fetch(request.url, {
        method: request.method,
        ...(request.headers ? { headers: request.headers } : {}),
        ...(request.body !== undefined ? { body: request.body } : {}),
        redirect: 'manual',
        signal: request.signal ? AbortSignal.any([timeout.signal, request.signal]) : timeout.signal,
      });
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name] = value;
      });
      return { status: response.status, headers, body: new Uint8Array(await response.arrayBuffer()) };
    } finally {
      timeout.clear();
    }
  }
}
