import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { OutboundRequest, OutboundResponse } from '../../core/ports/http-client.js';
import { timeoutSignal } from './timeout-signal.js';

/**
 * Sends `request` over node:http(s) to `request.address` instead of resolving the URL's host:
 * every lookup of the connection answers that address, while the `Host` header and the TLS server
 * name (and certificate check) stay the URL's. No redirect is followed.
 * @throws Error when the request got no answer within `timeoutMs`, its signal aborted or the connection failed
 */
export function pinnedRequest(request: OutboundRequest & { address: string }): Promise<OutboundResponse> {
  const url = new URL(request.url);
  const family = isIP(request.address);
  if (family === 0) return Promise.reject(new TypeError(`address must be an IP address, got "${request.address}"`));
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, [{ address: request.address, family }]);
    else callback(null, request.address, family);
  };
  const timeout = timeoutSignal(request.timeoutMs);
  const signal = request.signal ? AbortSignal.any([timeout.signal, request.signal]) : timeout.signal;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const answered = new Promise<OutboundResponse>((resolve, reject) => {
    const outgoing = send(url, { method: request.method, headers: request.headers ?? {}, lookup, signal }, (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
        resolve({ status: response.statusCode ?? 0, headers, body: new Uint8Array(Buffer.concat(chunks)) });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(request.body === undefined ? undefined : typeof request.body === 'string' ? request.body : Buffer.from(request.body));
  });
  return answered.finally(() => timeout.clear());
}
