import type { Runtime } from '../runtime/create-runtime.js';
import { JSON_TYPE, methodNotAllowed } from './api-edge.js';
import { toWebResponse } from './answers.js';

/** The paths answered for operators and load balancers, outside `/v1` and without auth. */
export const OPERATIONS_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz']);

const HEALTHY = JSON.stringify({ status: 'ok' });

/**
 * `GET /healthz`: 200 `{status: "ok"}` while the process serves. `GET /readyz`: 200
 * `{status: "ready"}` when the store and every configured provider answer, else 503
 * `{status: "unready", failing: [names]}` (DECISIONS.md, "Operating a live service"). Neither
 * is cached by clients (`Cache-Control: no-store`).
 */
export async function operationsPage(runtime: Runtime, request: Request, path: string): Promise<Response> {
  const head = request.method === 'HEAD';
  if (request.method !== 'GET' && !head) return toWebResponse(methodNotAllowed(request.method, 'GET, HEAD'), false);
  const headers = { 'content-type': JSON_TYPE, 'cache-control': 'no-store' };
  if (path === '/healthz') return toWebResponse({ status: 200, headers, body: HEALTHY }, head);
  const readiness = await runtime.readiness();
  const body = readiness.ready ? { status: 'ready' } : { status: 'unready', failing: readiness.failing };
  return toWebResponse({ status: readiness.ready ? 200 : 503, headers, body: JSON.stringify(body) }, head);
}
