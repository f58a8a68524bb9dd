import type { Transport } from './api/transport.js';
import { typedCall } from './api/typed-call.js';
import { controlClient, type SimClient } from './control/control.client.js';
import { identityClient, type IdentityClient } from './identity/identity.client.js';

export type { CallInput, CallOptions, Transport } from './api/transport.js';
export type { SimClient } from './control/control.client.js';

/**
 * One method per endpoint; each takes and returns exactly the JSON bodies of SPEC.md and
 * DECISIONS.md and throws `ApiError` with the status and code the HTTP API would send. Each area
 * contributes its own interface.
 */
export interface AgentClient extends IdentityClient {}

/** Builds an {@link AgentClient} over a transport. */
export function createAgentClient(transport: Transport): AgentClient {
  const call = typedCall(transport);
  return { ...identityClient(call) };
}

/** Builds a {@link SimClient} over a transport. */
export function createSimClient(transport: Transport): SimClient {
  return controlClient(typedCall(transport));
}
