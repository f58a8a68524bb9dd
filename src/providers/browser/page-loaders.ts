import type { HttpClient } from '../../core/ports/http-client.js';
import type { PageLoader, PageRequest, PageResponse } from './sim-browser.js';

const MAX_REDIRECTS = 10;

/**
 * A page loader that follows redirects itself (a 303 after a form post becomes a GET, as browsers
 * do) over one-hop fetches: `inProcess` answers URLs under the runtime's own base URL without a
 * socket, everything else goes through the {@link HttpClient} port.
 */
export function pageLoader(options: { http: HttpClient; timeoutMs: number; inProcess?: { baseUrl: () => string; fetch: (request: Request) => Promise<Response> } }): PageLoader {
  const once = async (request: PageRequest): Promise<Omit<PageResponse, 'url'>> => {
    const own = options.inProcess;
    if (own && request.url.startsWith(`${own.baseUrl()}/`)) {
      const init: RequestInit = { method: request.method, headers: request.headers, redirect: 'manual' };
      if (request.body) init.body = request.body;
      const response = await own.fetch(new Request(request.url, init));
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => (headers[name] = value));
      return { status: response.status, headers, body: new Uint8Array(await response.arrayBuffer()) };
    }
    const method = request.method.toUpperCase() as 'GET' | 'POST';
    return options.http.request({ method, url: request.url, headers: request.headers, ...(request.body ? { body: request.body } : {}), timeoutMs: options.timeoutMs });
  };
  return async (first) => {
    let request = first;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const answer = await once(request);
      const location = answer.headers.location;
      if (answer.status >= 300 && answer.status < 400 && location) {
        const next = new URL(location, request.url).href;
        const keepsMethod = answer.status === 307 || answer.status === 308;
        request = keepsMethod ? { ...request, url: next } : { method: 'GET', url: next, headers: withoutBodyHeaders(request.headers), body: null };
        continue;
      }
      return { ...answer, url: request.url };
    }
    throw new Error(`too many redirects loading ${first.url}`);
  };
}

function withoutBodyHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !/^content-(type|length)$/i.test(name)));
}
