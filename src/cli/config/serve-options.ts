import { BUILT_IN_EMBEDDERS } from '../../core/memory/memory-config.js';
import { LOG_LEVELS } from '../../http/log-levels.js';
import { choice, duration, flag, integer, list, seedValue, text, type OptionKind, type RawValue } from './option-kinds.js';

/** One setting of `agent-services serve`: a `--flag`, a config file key and an `AGENT_SERVICES_<KEY>` variable at once. */
export interface ServeOption<T = unknown> {
  kind: OptionKind<T>;
  /** One line for `config schema`. */
  description: string;
  /** Never printed or logged; may be given as `<key>_file` (a file holding it). */
  secret?: true;
  /** The value when no source gives one. */
  fallback?: RawValue;
}

function option<T>(kind: OptionKind<T>, description: string, extra: { secret?: true; fallback?: RawValue } = {}): ServeOption<T> {
  return { kind, description, ...extra };
}

/** `USER:PASSWORD`, both non-empty. */
const userPassword = (): OptionKind<{ user: string; pass: string }> => ({
  ...text(),
  parse(raw) {
    const value = String(raw);
    const colon = value.indexOf(':');
    if (colon <= 0 || colon === value.length - 1) throw new Error('must be USER:PASSWORD, both non-empty');
    return { user: value.slice(0, colon), pass: value.slice(colon + 1) };
  },
});

/** 32 bytes as 64 hexadecimal digits or base64, kept as written (the vault decodes it). */
const vaultKey = (): OptionKind<string> => ({
  ...text(),
  parse(raw) {
    const value = String(raw).trim();
    const bytes = /^[0-9a-fA-F]{64}$/.test(value) ? 32 : /^[A-Za-z0-9+/]{43}=?$/.test(value) ? Buffer.from(value, 'base64').length : 0;
    if (bytes !== 32) throw new Error('must be 32 bytes as 64 hexadecimal digits or base64 (openssl rand -base64 32)');
    return value;
  },
});

/**
 * Every setting of `serve`, declared once: its key here is the config file's key (snake_case),
 * its flag is the key in kebab-case (`service_domain` is `--service-domain`) and its variable is
 * `AGENT_SERVICES_<KEY>`. A flag beats the variable, which beats the file. Add a setting by adding
 * one entry (and its use in `serve-settings.ts`).
 */
export const SERVE_OPTIONS = {
  host: option(text(), 'Address to listen on (default: $HOST, else 127.0.0.1)'),
  port: option(integer(0, 65_535), 'Port to listen on; 0 picks a free one (default: $PORT, else 8787)'),
  seed: option(seedValue(), 'Seed of the simulated world (default 0)', { fallback: '0' }),
  data: option(text(), 'Keep the world in this SQLite database file'),
  database: option(text(), 'Keep the world in PostgreSQL (postgres://USER:PASS@HOST:PORT/DB; default $DATABASE_URL): any number of processes may serve it at once', { secret: true }),
  blobs: option(text(), 'With database: keep file bytes in this directory, shared by every process, instead of in the database'),
  advertise_url: option(text(), "With database: this process's own URL, for browser sessions' ws_endpoint and forwarded calls (default: the listen URL)"),
  event_retention: option(duration(), 'Remove events and settled webhook deliveries older than this much service time (30d, 12h)'),
  request_timeout: option(duration(), "Real-time deadline of each request's outside calls (30s, 500ms)"),
  admin_token: option(text(), 'Bearer token of /admin/v1, /_sim, /metrics and the dashboard', { secret: true }),
  service_domain: option(text(), 'Domain of handles and mailboxes (default agents.test)'),
  base_url: option(text(), 'The public URL of the service, {base_url} (default: the listen address)'),
  live: option(flag(), 'Real clock and OS randomness instead of the simulation', { fallback: false }),
  demo: option(flag(), 'Create a demo agent and print its API key', { fallback: false }),
  issuer_key: option(text(), 'A private Ed25519 JWK file that signs credentials'),
  chain: option(list(), 'How a network runs, NETWORK=MODE: sim (default), local (a chain in the process) or a JSON-RPC URL (a list; docs/chains.md)'),
  usdc: option(list(), 'The usdc contract or mint of a network, NETWORK=ADDRESS (a list; local chains deploy their own)'),
  confirmations: option(list(), 'Confirmations before a transfer counts, NETWORK=N (a list; default ethereum 12, base 10, solana 32, local 1)'),
  custody_mnemonic_file: option(text(), 'A file holding the BIP-39 mnemonic of custody (needed for local and RPC chains)'),
  smtp_port: option(integer(0, 65_535), 'Also accept mail for the agents over SMTP on this port'),
  smtp_host: option(text(), 'Address of the SMTP listener (default: host)'),
  smtp_auth: option(userPassword(), 'USER:PASSWORD of the one SMTP AUTH account', { secret: true }),
  smtp_rate: option(integer(1, 999_999_999, 'a positive integer (messages a minute per connection)'), 'At most this many messages a minute on one SMTP connection'),
  smtp_relay: option(text(), 'Send mail for outside addresses through this relay: smtp://user:pass@host:587 or smtps://...', { secret: true }),
  dkim_key: option(text(), 'DKIM-sign relayed mail with this PEM private key file (RSA 2048 or Ed25519)'),
  dkim_selector: option(text(), 'The DKIM selector (default agents)'),
  smtp_tls_cert: option(text(), 'PEM certificate file: the SMTP listener offers STARTTLS'),
  smtp_tls_key: option(text(), 'PEM private key file of smtp_tls_cert'),
  smtp_require_tls: option(flag(), 'Answer MAIL and AUTH before STARTTLS with 530 5.7.0', { fallback: false }),
  smtp_enforce_dmarc: option(flag(), 'Refuse mail failing DMARC from a domain that publishes p=reject with 550 5.7.1', { fallback: false }),
  dns_server: option(text(), 'HOST:PORT of the DNS resolver for SPF, DKIM and DMARC (default: the system resolver)'),
  webhook: option(list(), 'Deliver every webhook event to URL=SECRET (a list)', { secret: true }),
  sandbox: option(choice(['wasm', 'bubblewrap']), 'Where compute runs execute', { fallback: 'wasm' }),
  browser: option(choice(['auto', 'chromium', 'simulated']), 'Which browser runs sessions', { fallback: 'auto' }),
  chromium: option(text(), 'The Chromium binary'),
  embedder: option(choice(BUILT_IN_EMBEDDERS), 'The built-in memory embedder'),
  embedding_model: option(text(), 'A local sentence-transformers ONNX model directory for memories'),
  embedding_dtype: option(choice(['fp32', 'q8']), 'Weights of embedding_model', { fallback: 'fp32' }),
  openai_embeddings_url: option(text(), 'An OpenAI-compatible embeddings endpoint for memories (https://api.openai.com, an Ollama or vLLM server)'),
  openai_embeddings_model: option(text(), 'The model of openai_embeddings_url (text-embedding-3-small)'),
  openai_embeddings_key: option(text(), 'The API key of openai_embeddings_url', { secret: true }),
  twilio_account_sid: option(text(), 'The Twilio account (AC...) that carries SMS and calls'),
  twilio_auth_token: option(text(), 'The auth token of twilio_account_sid', { secret: true }),
  twilio_callback_url: option(text(), 'Where Twilio reaches this service (default: base_url); callbacks go to /_twilio'),
  twilio_numbers: option(list(), 'The Twilio numbers new agents get, in order (E.164; creation answers 409 when all are taken)'),
  card_vault_key: option(vaultKey(), "AES-256 key of the card vault that keeps a new card's details until the dashboard shows them once: 64 hex digits or base64 of 32 bytes (openssl rand -base64 32)", { secret: true }),
  log_level: option(choice(LOG_LEVELS), 'Request log level (info writes one JSON line per request)', { fallback: 'info' }),
  shutdown_timeout: option(duration(), 'How long requests in flight may finish after SIGTERM or SIGINT', { fallback: '30s' }),
} satisfies Record<string, ServeOption<any>>;

/** A setting's key. */
export type ServeKey = keyof typeof SERVE_OPTIONS;

/** The typed value of every setting that has one. */
export type ServeValues = { [K in ServeKey]?: ReturnType<(typeof SERVE_OPTIONS)[K]['kind']['parse']> };

/** The flag of a key: `service_domain` → `service-domain`. */
export function flagOf(key: string): string {
  return key.replaceAll('_', '-');
}

/** The environment variable of a key: `service_domain` → `AGENT_SERVICES_SERVICE_DOMAIN`. */
export function variableOf(key: string): string {
  return `AGENT_SERVICES_${key.toUpperCase()}`;
}
