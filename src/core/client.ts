import type { Transport } from './api/transport.js';
import { typedCall } from './api/typed-call.js';
import { controlClient, type ControlClient } from './control/control.client.js';
import { emailClient, emailSimClient, type EmailClient, type EmailSimClient } from './email/email.client.js';
import { identityClient, type IdentityClient } from './identity/identity.client.js';
import { memoryClient, type MemoryClient } from './memory/memory.client.js';
import { walletClient, walletSimClient, type WalletClient, type WalletSimClient } from './wallet/wallet.client.js';

export type { CallInput, CallOptions, Transport } from './api/transport.js';

/**
 * One method per endpoint; each takes and returns exactly the JSON bodies of SPEC.md and
 * DECISIONS.md and throws `ApiError` with the status and code the HTTP API would send. Each area
 * contributes its own interface.
 */
export interface AgentClient extends IdentityClient, WalletClient, EmailClient, MemoryClient {}

/** Builds an {@link AgentClient} over a transport. */
export function createAgentClient(transport: Transport): AgentClient {
  const call = typedCall(transport);
  return { ...identityClient(call), ...walletClient(call), ...emailClient(call), ...memoryClient(call) };
}

/** The simulation control plane of DECISIONS.md as methods; each area contributes its part. */
export interface SimClient extends ControlClient, WalletSimClient, EmailSimClient {}

/** Builds a {@link SimClient} over a transport. */
export function createSimClient(transport: Transport): SimClient {
  const call = typedCall(transport);
  return { ...controlClient(call), ...walletSimClient(call), ...emailSimClient(call) };
}
