/**
 * agent-services: the whole Agent Services API as one deterministic, embeddable runtime.
 *
 * `createRuntime` builds a world (simulated by default); `runtime.agent(apiKey)` is an in-process
 * client, `runtime.fetch` answers WHATWG requests, `serve` listens on a port and `connect` is the
 * same client over HTTP.
 */
import { createApp } from './http/create-app.js';
import { createRuntimeCore, type Runtime } from './runtime/create-runtime.js';
import type { RuntimeOptions } from './runtime/runtime-options.js';

/** Builds a runtime with its HTTP layer attached (`runtime.fetch`). */
export async function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const runtime = await createRuntimeCore(options);
  const app = createApp(runtime);
  runtime.attachFetch(async (request) => app.fetch(request));
  return runtime;
}

export { Runtime } from './runtime/create-runtime.js';
export type { RuntimeOptions, ProviderOverrides } from './runtime/runtime-options.js';
export type { SimControl } from './runtime/sim-control.js';
export { serve, type RunningServer } from './http/serve.js';
export { connect, connectSim, httpTransport, type ConnectOptions } from './http/connect.js';
export { ApiError, ERROR_STATUS, type ErrorCode, type ErrorBody } from './core/shared/api-error.js';
export { createAgentClient, createSimClient, type AgentClient, type SimClient, type Transport, type CallOptions, type CallInput } from './core/client.js';
export { canonicalJson, sha256Hex } from './core/shared/json.js';
export type * from './core/identity/identity.schema.js';
export type * from './core/control/control.schema.js';
export { SimClock } from './sim/sim-clock.js';
export { SeededRandom } from './sim/seeded-random.js';
export { SystemClock } from './providers/clock/system-clock.js';
export { CryptoRandom } from './providers/random/crypto-random.js';
export { MemoryStore } from './providers/store/memory-store.js';
export { JsonFilePersistence } from './providers/persistence/json-file-persistence.js';
export { Ed25519IssuerKeys } from './providers/keys/ed25519-issuer-keys.js';
export { MemoryBlobStore } from './providers/blobs/memory-blob-store.js';
export { FileBlobStore } from './providers/blobs/file-blob-store.js';
export type { Download } from './core/api/binary.js';
