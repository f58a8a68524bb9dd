import type { RouteDefinition } from '../core/api/route.js';
import type { Transport } from '../runtime/clients.js';
import { ERROR_STATUS } from '../core/shared/api-error.js';
import { httpTransport } from '../http/connect.js';

/**
 * A response that breaks the wire rules of DECISIONS.md (a status that does not match the error
 * code, an error body of another shape, a success status other than the route's). It is not an
 * `ApiError`, so a check that expects an API error fails on it too, with this message.
 */
export class WireViolation extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireViolation';
  }
}

/** What one request must look like on the wire, or why not. */
async function violationOf(route: RouteDefinition, response: Response): Promise<string | undefined> {
  const call = `${route.method} ${route.path}`;
  if (response.status < 400) {
    if (response.status !== route.status) return `${call} answered ${response.status}; DECISIONS.md: ${route.status}`;
    return undefined;
  }
  const type = response.headers.get('content-type') ?? '';
  if (!/^application\/([\w.+-]*\+)?json/i.test(type)) return `${call} answered ${response.status} with content-type ${JSON.stringify(type)}, not JSON`;
  let body: unknown;
  try {
    body = JSON.parse(await response.text());
  } catch {
    return `${call} answered ${response.status} with a body that is not JSON`;
  }
  const error = (body as { error?: Record<string, unknown> } | null)?.error;
  if (!error || typeof body !== 'object' || Object.keys(body as object).length !== 1) return `${call} answered ${response.status} with a body that is not {"error": {...}}`;
  const extra = Object.keys(error).filter((key) => !['code', 'message', 'param'].includes(key));
  if (extra.length > 0) return `${call}: the error body has fields outside code, message, param: ${extra.join(', ')}`;
  if (typeof error.code !== 'string' || !(error.code in ERROR_STATUS)) return `${call} answered error code ${JSON.stringify(error.code)}, which DECISIONS.md does not define`;
  if (typeof error.message !== 'string' || error.message === '') return `${call}: the error of code ${error.code} has no message`;
  if ('param' in error && typeof error.param !== 'string') return `${call}: the error param is not a string`;
  const expected = ERROR_STATUS[error.code as keyof typeof ERROR_STATUS];
  if (expected !== response.status) return `${call} answered ${response.status} with code ${error.code}; DECISIONS.md: ${error.code} is ${expected}`;
  return undefined;
}

/** How a checked transport reaches the server. */
export interface CheckedTransportOptions {
  baseUrl: string;
  apiKey?: string;
  fetch: (request: Request) => Promise<Response>;
}

/**
 * An HTTP transport that checks every answer against the wire rules before the client reads it.
 * @throws WireViolation from a call whose answer breaks them
 */
export function checkedHttpTransport(options: CheckedTransportOptions): Transport {
  return (route, input, callOptions) => {
    const checkingFetch = async (request: Request): Promise<Response> => {
      const response = await options.fetch(request);
      const problem = await violationOf(route, response.clone());
      if (problem) throw new WireViolation(problem);
      return response;
    };
    const transport = httpTransport({ baseUrl: options.baseUrl, fetch: checkingFetch, ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }) });
    return transport(route, input, callOptions);
  };
}
