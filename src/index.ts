/**
 * agent-services: the whole Agent Services API as one deterministic, embeddable runtime.
 *
 * `createRuntime` builds a world (simulated by default); `runtime.agent(apiKey)` is an in-process
 * client, `runtime.fetch` answers WHATWG requests, `serve` listens on a port and `connect` is the
 * same client over HTTP.
 */
import { createApp } from './http/create-app.js';
import { mcpEdge } from './mcp/mcp-edge.js';
import { dashboardEdge } from './dashboard/dashboard-edge.js';
import { createRuntimeCore, type Runtime } from './runtime/create-runtime.js';
import type { RuntimeOptions } from './runtime/runtime-options.js';

/** Builds a runtime with its HTTP layer attached (`runtime.fetch`), the MCP endpoint at `/mcp` and the dashboard at `/_dashboard` included. */
export async function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const runtime = await createRuntimeCore(options);
  runtime.addEdge(mcpEdge(runtime));
  runtime.addEdge(dashboardEdge(runtime, { adminToken: options.adminToken }));
  const app = createApp(runtime);
  runtime.attachFetch((request) => app.fetch(request));
  return runtime;
}

export { Runtime } from './runtime/create-runtime.js';
export type { RuntimeOptions, ProviderOverrides } from './runtime/runtime-options.js';
export type { SimControl } from './runtime/sim-control.js';
export { serve, type RunningServer, type ServeOptions } from './http/serve.js';
export { connect, connectSim, httpTransport, type ConnectOptions } from './http/connect.js';
export { ApiError, ERROR_STATUS, type ErrorCode, type ErrorBody } from './core/shared/api-error.js';
export { createAgentClient, createSimClient, AGENT_ROUTE_TABLES, SIM_ROUTE_TABLES, type AgentClient, type SimClient, type Transport, type CallOptions, type CallInput } from './runtime/clients.js';
export { buildClient, type ClientOf, type RouteMethod, type RouteTable } from './core/api/route-client.js';
export { createMcpServer, serveMcpStdio, mcpEdge, MCP_PATH, agentTools as mcpTools, toolNameOf as mcpToolNameOf, type ToolSpec as McpToolSpec } from './mcp/index.js';
export { dashboardEdge, DASHBOARD_PATH } from './dashboard/index.js';
export { defineArea, type AreaModule, type AreaContext, type AreaEdge, type ListeningEdge } from './runtime/areas/area-module.js';
export { SimCreateAgentBody } from './runtime/agent-creation.js';
export type { HttpClient, OutboundRequest, OutboundResponse } from './core/ports/http-client.js';
export { FetchHttpClient } from './providers/http/fetch-http-client.js';
export { canonicalJson, sha256Hex } from './core/shared/json.js';
export type * from './core/identity/identity.schema.js';
export type * from './core/control/control.schema.js';
export type * from './core/wallet/wallet.schema.js';
export type * from './core/faults/faults.schema.js';
export { FAULT_TARGETS, FAULT_EFFECTS } from './core/faults/fault-targets.js';
export type { Faults, FaultOperation, StruckFault } from './core/ports/faults.js';
export { DEFAULT_FEES, type FeeSchedule, type FeeOverrides } from './core/wallet/fees.js';
export type { WalletOptions } from './core/wallet/wallet-config.js';
export type { PaymentRails, OutboundTransfer, RailSubmission, RailSettlement, RailName } from './core/ports/payment-rails.js';
export { SimPaymentRails } from './sim/sim-payment-rails.js';
export type * from './core/email/email.schema.js';
export type { MailInbound } from './core/email/inbound.service.js';
export { MailTransportError, type MailTransport, type OutboundMail, type OutboundAttachment, type TransportOutcome, type RecipientRefusal } from './core/ports/mail-transport.js';
export type { MailParser, ParsedMail, ParsedAttachment } from './core/ports/mail-parser.js';
export { SimMailTransport } from './sim/sim-mail-transport.js';
export { SmtpMailTransport, type SmtpRelayOptions } from './providers/mail/smtp-mail-transport.js';
export { readDkimKey, dkimRecordValue, type DkimKey } from './providers/mail/auth/dkim-key.js';
export type { DkimSigning } from './providers/mail/auth/dkim-signer.js';
export { MailparserMailParser } from './providers/mail/mailparser-mail-parser.js';
export type { SmtpEdgeOptions, EmailOptions, DkimOptions } from './core/email/email-config.js';
export type { RetryOptions as EmailRetryOptions } from './core/email/retry-policy.js';
export type * from './core/memory/memory.schema.js';
export type { MemoryOptions } from './core/memory/memory-config.js';
export type { Embedder } from './core/ports/embedder.js';
export type { VectorIndex, VectorIndexFactory, VectorHit } from './core/ports/vector-index.js';
export type { DocumentExtractor, DocumentKind } from './core/ports/document-extractor.js';
export { HashingEmbedder } from './sim/hashing-embedder.js';
export { OpenAICompatibleEmbedder, type OpenAICompatibleEmbedderOptions } from './providers/embeddings/openai-compatible-embedder.js';
export { WordVectorEmbedder, createWordVectorEmbedder } from './sim/word-vector-embedder.js';
export { HybridEmbedder, type HybridEmbedderOptions } from './sim/hybrid-embedder.js';
export { createDefaultEmbedder } from './runtime/default-embedder.js';
export { SentenceEncoderEmbedder } from './providers/embeddings/sentence-encoder/sentence-encoder-embedder.js';
export { loadWordVectorTable } from './providers/embeddings/word-vector-table-file.js';
export type { WordVectorTable } from './core/ports/word-vectors.js';
export { LocalModelEmbedder, type LocalModelEmbedderOptions } from './providers/embeddings/local-model-embedder.js';
export { ExactVectorIndex, ExactVectorIndexFactory } from './providers/vector/exact-vector-index.js';
export { HnswVectorIndex, HnswVectorIndexFactory, type HnswOptions } from './providers/vector/hnsw-vector-index.js';
export { LibraryDocumentExtractor, type LibraryDocumentExtractorOptions } from './providers/documents/library-document-extractor.js';
export { SimClock } from './sim/sim-clock.js';
export { SeededRandom } from './sim/seeded-random.js';
export { SystemClock } from './providers/clock/system-clock.js';
export { CryptoRandom } from './providers/random/crypto-random.js';
export { MemoryStore } from './providers/store/memory-store.js';
export { SqliteStore, type SqliteStoreOptions } from './providers/store/sqlite-store.js';
export { StoreOpenError } from './providers/store/sqlite-open.js';
export { JsonFilePersistence } from './providers/persistence/json-file-persistence.js';
export { Ed25519IssuerKeys } from './providers/keys/ed25519-issuer-keys.js';
export { MemoryBlobStore } from './providers/blobs/memory-blob-store.js';
export { FileBlobStore } from './providers/blobs/file-blob-store.js';
export type { Download, UploadInput } from './core/api/binary.js';
export { verifyWebhook, type VerifyWebhookOptions } from './http/verify-webhook.js';
export { WebhookVerificationError, type SignatureFailure } from './core/webhooks/signature.js';
export type * from './core/webhooks/webhooks.schema.js';
export { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './core/webhooks/webhook-types.js';
// `Policy` names a scenario agent's behaviour in the scenario API: the operator's document is `AgentPolicy`.
export type { Policy as AgentPolicy, PolicyAnswer as AgentPolicyAnswer } from './core/policy/policy.schema.js';
export type { PolicyRule } from './core/policy/policy-violation.js';
export {
  EVENTS,
  EVENT_TYPES,
  LOGGED_EVENT_TYPES,
  type EventDeclaration,
  type EventType,
  type LoggedEventType,
  type EventData,
  type WebhookData,
} from './core/events/events.schema.js';
export type { RuntimeWebhookOption, WebhookOptions } from './core/webhooks/webhook-config.js';
export type { AddressResolver } from './core/ports/address-resolver.js';
export type * from './core/phone/phone.schema.js';
export type { PhoneOptions } from './core/phone/phone-config.js';
export { CarrierRefusal, type Telephony, type TelephonyReports, type CarrierSms, type CarrierCall, type SmsPlan, type CallPlan } from './core/ports/telephony.js';
export { SimCarrier } from './sim/sim-carrier.js';
export { TwilioTelephony, type TwilioOptions } from './providers/telephony/twilio-telephony.js';
export { twilioSignature, verifyTwilioSignature } from './providers/telephony/twilio-signature.js';
export type * from './core/browser/browser.schema.js';
export type { BrowserOptions } from './core/browser/browser-config.js';
export type { Browser, BrowserInstance, BrowserLaunchRequest, CdpChannel, Screenshot, Viewport } from './core/ports/browser.js';
export { SimulatedBrowser, type PageLoader, type PageRequest, type PageResponse } from './providers/browser/sim-browser.js';
export { pageLoader } from './providers/browser/page-loaders.js';
export * from './scenario/index.js';
