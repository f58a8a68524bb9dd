import { contentDisposition, isBinaryBody } from '../core/api/binary.js';
import type { ApiError } from '../core/shared/api-error.js';

/** A JSON response; `null` body with 204; a binary body is streamed with its type and name. */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  if (status === 204) return new Response(null, { status, headers });
  if (isBinaryBody(body)) {
    return new Response(ReadableStream.from(body.open()), {
      status,
      headers: { 'content-type': body.contentType, 'content-length': String(body.size), 'content-disposition': contentDisposition(body.filename), ...headers },
    });
  }
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });
}

/** The JSON answer of an ApiError. */
export function errorResponse(error: ApiError): Response {
  return jsonResponse(error.status, error.toBody());
}
