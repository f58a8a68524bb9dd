import { ApiError } from '../core/shared/api-error.js';
import type { Runtime } from '../runtime/create-runtime.js';
import { errorAnswer, JSON_TYPE, methodNotAllowed } from './api-edge.js';
import { toWebResponse } from './answers.js';
import type { ServiceMetrics } from './service-metrics.js';

/** The paths answered for operators and load balancers, outside `/v1`: health and readiness without auth, metrics behind the admin token. */
export const OPERATIONS_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

const HEALTHY = JSON.stringify({ status: 'ok' });

/**
 * `GET /metrics` (only on a server given metrics): the Prometheus text, behind the admin token
 * when one is configured. `GET /healthz`: 200 `{status: "ok"}` while the process serves. `GET /readyz`: 200
 * `{status: "ready"}` when the store and every configured provider answer, else 503
 * `{status: "unready", failing: [names]}` (DECISIONS.md, "Operating a live service"). Neither
 * is cached by clients (`Cache-Control: no-store`).
 */
export async function operationsPage(runtime: Runtime, request: Request, path: string, metrics: ServiceMetrics | undefined): Promise<Response> {
  const head = request.method === 'HEAD';
  if (path === '/metrics' && !metrics) return toWebResponse(errorAnswer(new ApiError('not_found', 'no such route')), head);
  if (request.method !== 'GET' && !head) return toWebResponse(methodNotAllowed(request.method, 'GET, HEAD'), false);
  const headers = { 'content-type': JSON_TYPE, 'cache-control': 'no-store' };
  if (path === '/metrics' && metrics) {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '')?.[1] ?? null;
    if (!runtime.adminBearerAllowed(bearer)) return toWebResponse(errorAnswer(new ApiError('unauthorized', 'a valid admin token is required')), head);
    const { contentType, text } = await metrics.exposition();
    return toWebResponse({ status: 200, headers: { 'content-type': contentType, 'cache-control': 'no-store' }, body: text }, head);
  }
  if (path === '/healthz') return toWebResponse({ status: 200, headers, body: HEALTHY }, head);
  const readiness = await runtime.readiness();
  const body = readiness.ready ? { status: 'ready' } : { status: 'unready', failing: readiness.failing };
  return toWebResponse({ status: readiness.ready ? 200 : 503, headers, body: JSON.stringify(body) }, head);
}
