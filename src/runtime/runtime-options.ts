import type { BlobStore } from '../core/ports/blob-store.js';
import type { Clock } from '../core/ports/clock.js';
import type { IssuerKeys } from '../core/ports/issuer-keys.js';
import type { Persistence } from '../core/ports/persistence.js';
import type { Random } from '../core/ports/random.js';
import type { Store } from '../core/ports/store.js';
import type { MailTransport } from '../core/ports/mail-transport.js';
import type { PaymentRails } from '../core/ports/payment-rails.js';
import type { CustodyKeys } from '../core/ports/custody-keys.js';
import type { WalletOptions } from '../core/wallet/wallet-config.js';
import type { DocumentExtractor } from '../core/ports/document-extractor.js';
import type { Embedder } from '../core/ports/embedder.js';
import type { VectorIndexFactory } from '../core/ports/vector-index.js';
import type { MemoryOptions } from '../core/memory/memory-config.js';
import type { Browser } from '../core/ports/browser.js';
import type { BrowserOptions } from '../core/browser/browser-config.js';
import type { HttpClient } from '../core/ports/http-client.js';
import type { AddressResolver } from '../core/ports/address-resolver.js';
import type { RuntimeWebhookOption, WebhookOptions } from '../core/webhooks/webhook-config.js';
import type { Telephony } from '../core/ports/telephony.js';
import type { PhoneOptions } from '../core/phone/phone-config.js';
import type { ComputeOptions } from '../core/compute/compute-config.js';
import type { Sandbox } from '../core/ports/sandbox.js';
import type { EmailOptions } from '../core/email/email-config.js';
import type { CardVault } from '../core/ports/card-vault.js';

/** Providers a runtime can be given instead of its defaults. */
export interface ProviderOverrides {
  clock?: Clock;
  random?: Random;
  issuerKeys?: IssuerKeys;
  /** Outbound mail to addresses outside the service (default: simulated, kept in the outbox; `SmtpMailTransport` relays). */
  mailTransport?: MailTransport;
  /** Chains and bank rails of the wallet (default: the simulated ones of `src/sim`). */
  paymentRails?: PaymentRails;
  /** Custody keys (default: BIP-39 HD keys from `wallet.custodyMnemonic(File)`, or from the seed). */
  custodyKeys?: CustodyKeys;
  /** Embeds memories (default: the deterministic local hybrid of word vectors and `HashingEmbedder`; `LocalModelEmbedder` or `OpenAICompatibleEmbedder` for a model). */
  embedder?: Embedder;
  /** Makes each agent's vector index (default: by `memory.index`). */
  vectorIndex?: VectorIndexFactory;
  /** Reads the text of uploaded documents (default: `LibraryDocumentExtractor`). */
  documentExtractor?: DocumentExtractor;
  /** Runs browser sessions (default: by `browser.provider`). */
  browser?: Browser;
  /** Every outbound HTTP request: webhook deliveries, TwiML fetches, provider APIs (default: `FetchHttpClient`). */
  httpClient?: HttpClient;
  /** Resolves webhook hosts for live mode's private-address check (default: the OS resolver). */
  addressResolver?: AddressResolver;
  /** The phone network (default: the simulated carrier of `src/sim`; `TwilioTelephony` for Twilio). */
  telephony?: Telephony;
  /** Runs agent code (default: by `compute.sandbox`, the in-process WebAssembly sandbox). */
  sandbox?: Sandbox;
  /** Keeps new cards' details encrypted until the dashboard shows them once (default: `AesGcmCardVault` keyed by `cardVaultKey`). */
  cardVault?: CardVault;
}

/** Browser-session settings: which browser runs sessions, and the limits of docs/browser.md. */
export interface RuntimeBrowserOptions extends BrowserOptions {
  /** `auto` (default): Chromium when a binary is found, else the simulated browser. */
  provider?: 'auto' | 'chromium' | 'simulated';
  /** The Chromium binary (default: `CHROMIUM_PATH`, /usr/bin/chromium, or `chromium` on PATH). */
  chromiumPath?: string;
}

/** Options of `createRuntime`. Every option has an embedded default. */
export interface RuntimeOptions {
  /**
   * `simulated` (default): simulated clock and seeded randomness, the control plane is open.
   * `live`: system clock and OS randomness; the control plane needs the admin token.
   */
  mode?: 'simulated' | 'live';
  /** Seed of all simulated randomness and of the issuer key (default 0). */
  seed?: number | string;
  /** Domain of handles and mailboxes (default `agents.test`). */
  serviceDomain?: string;
  /** Simulated start instant, ISO 8601 (default 2026-01-01T00:00:00.000Z). */
  startTime?: string;
  /** `{base_url}`; when absent the HTTP server sets it from its listen address. */
  baseUrl?: string;
  /**
   * With `database`: the URL other processes of the world and DevTools clients reach this process
   * at (CLI `--advertise-url`; default its listen URL): the `ws_endpoint` of the browser sessions it
   * runs, and where the others forward calls on them.
   */
  advertiseUrl?: string;
  /** `{pay_url}` (default `{base_url}/pay`). */
  payUrl?: string;
  /** `{files_url}` (default `{base_url}/files`). */
  filesUrl?: string;
  /** Guards `/_sim` with `Authorization: Bearer <adminToken>` when set. */
  adminToken?: string;
  /**
   * A SQLite database file the world lives in (CLI `--data FILE`): created when missing, continued
   * when it exists, a JSON world of an older version imported once into its `.db` sibling; file
   * bytes go to `FILE.blobs/`. Not with `store`, `blobs` or `persistence`.
   */
  data?: string;
  /**
   * A PostgreSQL URL the world lives in (CLI `--database URL` or `DATABASE_URL`): any number of
   * processes may serve it at once. The schema is created at first start; file bytes go to the
   * database unless `blobsDir` names a directory every process shares. Not with `data`, `store`,
   * `blobs` or `persistence`.
   */
  database?: string;
  /** With `database`: keep file bytes in this directory (shared by every process) instead of the database (CLI `--blobs DIR`). */
  blobsDir?: string;
  /**
   * The AES-256 key of the card vault, which keeps a new card's number, CVV and billing address
   * until the dashboard shows them once: 64 hex digits or base64 of 32 bytes (CLI
   * `--card-vault-key`). Simulation derives one from the seed; a live service without one makes
   * one per process.
   */
  cardVaultKey?: string;
  /** A private Ed25519 JWK file (`{kty: "OKP", crv: "Ed25519", d, x}`) that signs credentials (CLI `--issuer-key`). */
  issuerKeyFile?: string;
  /** Receives one-line notices meant for the person running the world (a JSON world was imported). */
  onNotice?: (line: string) => void;
  /**
   * Where records live (default in memory). A `SqliteStore` makes the world durable: it also keeps
   * the clock and random state, and the runtime continues the world it holds.
   */
  store?: Store;
  /** Where state is saved as one JSON file after every change and loaded from at start (default nowhere; not with a durable store). */
  persistence?: Persistence;
  /**
   * Removes events, and settled webhook deliveries with the bodies they sent, older than this much
   * service time, e.g. `30d` or `12h` (default: every event is kept).
   */
  eventRetention?: string;
  /** Where file bytes live (default in memory; the CLI's `--data FILE` uses `FILE.blobs/`). */
  blobs?: BlobStore;
  /** Replacement providers. */
  providers?: ProviderOverrides;
  /** Largest accepted request body in bytes for the HTTP shim (default 1 MiB). */
  maxBodyBytes?: number;
  /**
   * Deadline of each API call's outside work (provider calls, runs, fetches), in real
   * milliseconds: the call's `signal` aborts then and the call answers 500 `internal_error` saying
   * so (DECISIONS.md has no timeout code). Default: none.
   */
  requestTimeoutMs?: number;
  /** Wallet settings: the fee schedule (defaults of DECISIONS.md). */
  wallet?: WalletOptions;
  /** Memory settings: upload limit, chunking, index choice (defaults in docs/memory.md). */
  memory?: MemoryOptions;
  /** Endpoints that receive every agent's webhook events (CLI `--webhook URL=SECRET`). */
  webhooks?: RuntimeWebhookOption[];
  /** Webhook delivery settings: timeout per attempt, private urls in live mode (docs/webhooks.md). */
  webhookOptions?: WebhookOptions;
  /** Phone settings: the simulated carrier's delays, speaking rate, redirect limit (defaults of DECISIONS.md). */
  phone?: PhoneOptions;
  /** Compute settings: filesystem quota, memory limit, pool size, sandbox choice (docs/compute.md). */
  compute?: ComputeOptions;
  /** Browser sessions: provider and limits (defaults in docs/browser.md). */
  browser?: RuntimeBrowserOptions;
  /** Email settings: the SMTP listener edge and the outbound queue's retries (docs/email.md). */
  email?: EmailOptions;
  /** Receives unexpected errors that were answered as 500 (default: written to stderr). */
  onInternalError?: (error: unknown, routeId: string) => void;
}
