import { ApiError } from '../core/shared/api-error.js';

/** A JSON response; `null` body with 204. */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  if (status === 204) return new Response(null, { status, headers });
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });
}

/** The JSON answer of an ApiError. */
export function errorResponse(error: ApiError): Response {
  return jsonResponse(error.status, error.toBody());
}
