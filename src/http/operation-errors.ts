import type { RouteDefinition } from '../core/api/route.js';
import type { ErrorCode } from '../core/shared/api-error.js';

/**
 * Error codes an operation answers beyond those its shape implies (see {@link errorCodesOf}):
 * what the area's services throw for this route. The recorder of the API tests
 * (test/support/openapi-recorder.ts) checks every answer against the document, so a code missing
 * here fails the test that provoked it.
 */
const AREA_ERRORS: Record<string, readonly ErrorCode[]> = {
  'identity.updateProfile': [],
  'identity.getPublicProfile': ['not_found'],
  'compute.run': ['quota_exceeded', 'payload_too_large', 'conflict', 'upstream_timeout', 'policy_violation'],
  'compute.listFs': ['not_found', 'conflict'],
  'compute.writeFs': ['quota_exceeded', 'payload_too_large', 'conflict'],
  'compute.readFs': ['not_found', 'conflict'],
  'compute.deleteFs': ['not_found', 'conflict'],
  'browser.createSession': ['rate_limited'],
  'browser.screenshot': ['conflict'],
  'wallet.send': ['invalid_amount', 'invalid_recipient', 'unsupported_network', 'insufficient_funds', 'recipient_not_found', 'policy_violation'],
  'wallet.createInvoice': ['invalid_amount', 'invalid_recipient', 'recipient_not_found'],
  'wallet.createCard': ['invalid_amount'],
  'sim.fundWallet': ['invalid_amount', 'invalid_recipient', 'recipient_not_found'],
  'sim.payInvoice': ['conflict'],
  'sim.chargeCard': ['invalid_amount', 'insufficient_funds'],
  'sim.addWalletFailure': ['invalid_recipient'],
  'sim.createAgent': ['already_exists', 'invalid_amount', 'conflict'],
  'admin.createAgent': ['already_exists', 'conflict'],
  'admin.createKey': ['conflict'],
  'policy.get': [],
  'email.send': ['recipient_not_found', 'policy_violation'],
  'email.reply': ['recipient_not_found', 'policy_violation'],
  'sim.emailInbound': ['recipient_not_found'],
  'phone.sendSms': ['invalid_recipient', 'policy_violation', 'upstream_timeout'],
  'phone.placeCall': ['invalid_recipient', 'policy_violation', 'upstream_timeout'],
  'sim.phoneInbound': ['not_found'],
  'memory.create': ['content_too_long', 'policy_violation'],
  'memory.search': [],
  'memory.uploadFile': ['payload_too_large', 'quota_exceeded'],
};

/**
 * Every error code an operation can answer: those its shape implies (validation, authentication,
 * path parameters, Idempotency-Key, bodies) and those its area throws.
 */
export function errorCodesOf(route: RouteDefinition): ErrorCode[] {
  const codes = new Set<ErrorCode>();
  // Every operation refuses a bad input: a route without a query schema refuses any query parameter.
  codes.add('invalid_request');
  if (route.auth !== 'public') codes.add('unauthorized');
  // An agent the operator suspended is refused on every route its key reaches.
  if (route.auth === 'agent') codes.add('agent_suspended');
  // A path parameter names a resource that may not exist (or be another agent's); the control
  // plane answers 404 when it is hidden (live mode without an admin token).
  if (route.params || route.auth === 'admin') codes.add('not_found');
  if (route.method === 'POST') {
    codes.add('idempotency_conflict');
    codes.add('idempotency_key_in_use');
  }
  if (route.body || route.upload || route.rawBody) {
    codes.add('payload_too_large');
    codes.add('unsupported_media_type');
  }
  for (const code of AREA_ERRORS[route.id] ?? []) codes.add(code);
  // Refused before routing (DECISIONS.md): a URL or headers over 16 KB, a client that stalls.
  codes.add('request_timeout');
  codes.add('headers_too_large');
  codes.add('internal_error');
  return [...codes];
}

/** Route ids of {@link AREA_ERRORS}, for the test that keeps the table in step with the routes. */
export function routesWithAreaErrors(): string[] {
  return Object.keys(AREA_ERRORS);
}
