import { parseDuration } from '../../core/shared/duration.js';
import { parseWebhookFlag } from '../../core/webhooks/webhook-config.js';
import type { MemoryOptions } from '../../core/memory/memory-config.js';
import type { LogLevel } from '../../http/log-levels.js';
import type { RuntimeOptions } from '../../runtime/runtime-options.js';
import type { ResolvedConfig } from './resolve-config.js';
import type { ServeKey } from './serve-options.js';
import type { DkimOptions, SmtpEdgeOptions } from '../../core/email/email-config.js';
import { dkimFlags, smtpMailFlags, type MailFlagValues } from '../mail-flags.js';
import { anyRealChain, networkFlags, resolveChains } from '../../core/wallet/chain-config.js';

/** What `serve` runs with: the runtime's options and the server's own. */
export interface ServeSettings {
  runtime: RuntimeOptions;
  host: string;
  port: number;
  demo: boolean;
  smtp: { host: string; port: number } | null;
  logLevel: LogLevel;
  shutdownTimeoutMs: number;
  /**
   * Providers the runtime options cannot hold as plain data (Twilio, an embeddings endpoint):
   * built by `serve` from these settings when it starts, so that reading a configuration loads
   * no provider code.
   */
  providers: { twilio?: { accountSid: string; authToken: string; callbackBaseUrl: string | undefined }; openAiEmbeddings?: { baseUrl: string; model: string; apiKey?: string } };
}

/** The wallet options of `chain`, `usdc`, `confirmations` and `custody_mnemonic_file`, checked (errors pushed). */
function chainSettings(v: ResolvedConfig['values'], errors: string[]): Pick<RuntimeOptions, 'wallet'> {
  try {
    const chains = networkFlags('--chain', v.chain);
    const usdc = networkFlags('--usdc', v.usdc);
    const depthText = networkFlags('--confirmations', v.confirmations);
    const confirmations = depthText && Object.fromEntries(Object.entries(depthText).map(([network, text]) => [network, /^\d{1,4}$/.test(text) ? Number(text) : Number.NaN]));
    const wallet = {
      ...(chains ? { chains } : {}),
      ...(usdc ? { usdc } : {}),
      ...(confirmations ? { confirmations } : {}),
      ...(v.custody_mnemonic_file !== undefined ? { custodyMnemonicFile: v.custody_mnemonic_file } : {}),
    };
    if (anyRealChain(resolveChains(wallet)) && wallet.custodyMnemonicFile === undefined) errors.push('--chain NETWORK=local or =URL needs --custody-mnemonic-file FILE');
    return Object.keys(wallet).length > 0 ? { wallet } : {};
  } catch (error) {
    errors.push((error as Error).message);
    return {};
  }
}

/**
 * Turns resolved settings into what `serve` runs with, checking the settings that only make
 * sense together (an SMTP account needs the SMTP listener; Twilio needs its SID and token; an
 * embeddings endpoint needs its model).
 * @returns the settings, or the lines naming each setting that is missing or at odds with another
 */
export function serveSettings(config: ResolvedConfig): { settings: ServeSettings; errors: string[] } {
  const v = config.values;
  const errors: string[] = [];
  const named = (key: ServeKey) => config.sources[key] ?? `--${key.replaceAll('_', '-')}`;
  const host = v.host ?? '127.0.0.1';
  const memory: MemoryOptions = {
    ...(v.embedder !== undefined ? { embedder: v.embedder } : {}),
    ...(v.embedding_model !== undefined ? { embeddingModel: { folder: v.embedding_model, dtype: v.embedding_dtype ?? 'fp32' } } : {}),
  };
  const webhooks = [];
  for (const entry of v.webhook ?? []) {
    try {
      webhooks.push(parseWebhookFlag(entry));
    } catch {
      // The value holds a secret: the message says what is wrong without repeating it.
      errors.push(`${named('webhook')} expects URL=SECRET, got a value without "=" between a URL and a secret`);
    }
  }
  const runtime: RuntimeOptions = {
    seed: v.seed ?? 0,
    mode: v.live ? 'live' : 'simulated',
    ...(v.event_retention !== undefined ? { eventRetention: v.event_retention } : {}),
    ...(v.request_timeout !== undefined ? { requestTimeoutMs: parseDuration(v.request_timeout) } : {}),
    ...(v.admin_token !== undefined ? { adminToken: v.admin_token } : {}),
    ...(v.card_vault_key !== undefined ? { cardVaultKey: v.card_vault_key } : {}),
    ...(v.service_domain !== undefined ? { serviceDomain: v.service_domain } : {}),
    ...(v.base_url !== undefined ? { baseUrl: v.base_url } : {}),
    ...(webhooks.length > 0 ? { webhooks } : {}),
    ...(v.issuer_key !== undefined ? { issuerKeyFile: v.issuer_key } : {}),
    ...(v.data !== undefined ? { data: v.data } : {}),
    ...(v.database !== undefined ? { database: v.database } : {}),
    ...(v.blobs !== undefined ? { blobsDir: v.blobs } : {}),
    ...(v.advertise_url !== undefined ? { advertiseUrl: v.advertise_url.replace(/\/$/, '') } : {}),
    ...(Object.keys(memory).length > 0 ? { memory } : {}),
    ...(v.twilio_numbers !== undefined ? { phone: { numberPool: v.twilio_numbers } } : {}),
    ...chainSettings(v, errors),
    compute: { sandbox: v.sandbox ?? 'wasm' },
    browser: { provider: v.browser ?? 'auto', ...(v.chromium !== undefined ? { chromiumPath: v.chromium } : {}) },
  };
  if (v.database !== undefined && v.data !== undefined) errors.push(`give ${named('data')} (SQLite, one process) or ${named('database')} (PostgreSQL), not both`);
  if (v.blobs !== undefined && v.database === undefined) errors.push(`${named('blobs')} goes with ${named('database')}`);
  if (v.advertise_url !== undefined && v.database === undefined) errors.push(`${named('advertise_url')} goes with ${named('database')}`);
  if (v.advertise_url !== undefined && !/^https?:\/\/[^/?#\s]+\/?$/.test(v.advertise_url))
    errors.push(`${named('advertise_url')} must be an http:// or https:// URL of this process (scheme, host, port), got "${v.advertise_url}"`);
  const smtp = v.smtp_port === undefined ? null : { host: v.smtp_host ?? host, port: v.smtp_port };
  if (!smtp && (v.smtp_auth !== undefined || v.smtp_rate !== undefined)) errors.push(`${named('smtp_auth')} and ${named('smtp_rate')} need ${named('smtp_port')}`);
  const mailFlags: MailFlagValues = {
    'dkim-key': v.dkim_key,
    'dkim-selector': v.dkim_selector,
    'smtp-tls-cert': v.smtp_tls_cert,
    'smtp-tls-key': v.smtp_tls_key,
    'smtp-require-tls': v.smtp_require_tls,
    'smtp-enforce-dmarc': v.smtp_enforce_dmarc,
    'dns-server': v.dns_server,
  };
  let dkim: DkimOptions | undefined;
  let smtpMail: Partial<SmtpEdgeOptions> = {};
  try {
    dkim = dkimFlags(mailFlags);
    if (dkim && v.smtp_relay === undefined) errors.push('--dkim-key needs --smtp-relay: only mail handed to the relay is signed');
    smtpMail = smtpMailFlags(mailFlags, smtp !== null);
  } catch (error) {
    errors.push((error as Error).message);
  }
  if (smtp || v.smtp_relay !== undefined || dkim) {
    runtime.email = {
      ...(v.smtp_relay !== undefined ? { relay: v.smtp_relay } : {}),
      ...(dkim ? { dkim } : {}),
      ...(smtp ? { smtp: { ...smtp, ...(v.smtp_auth !== undefined ? { auth: v.smtp_auth } : {}), ...(v.smtp_rate !== undefined ? { maxMessagesPerMinute: v.smtp_rate } : {}), ...smtpMail } } : {}),
    };
  }
  const providers: ServeSettings['providers'] = {};
  const twilioKeys = ['twilio_account_sid', 'twilio_auth_token', 'twilio_callback_url'] as const;
  if (twilioKeys.some((key) => v[key] !== undefined)) {
    if (v.twilio_account_sid === undefined || v.twilio_auth_token === undefined)
      errors.push(`twilio_account_sid and twilio_auth_token go together (given: ${twilioKeys.filter((key) => v[key] !== undefined).join(', ')})`);
    else if (v.twilio_callback_url === undefined && v.base_url === undefined) errors.push('twilio_callback_url (or base_url) is needed with Twilio: it is where Twilio reports to this service');
    else providers.twilio = { accountSid: v.twilio_account_sid, authToken: v.twilio_auth_token, callbackBaseUrl: v.twilio_callback_url ?? v.base_url };
  }
  if (v.openai_embeddings_url !== undefined || v.openai_embeddings_model !== undefined || v.openai_embeddings_key !== undefined) {
    if (v.openai_embeddings_url === undefined || v.openai_embeddings_model === undefined) errors.push('openai_embeddings_url and openai_embeddings_model go together');
    else if (v.embedding_model !== undefined || v.embedder !== undefined)
      errors.push(`openai_embeddings_url and ${v.embedding_model !== undefined ? 'embedding_model' : 'embedder'} each choose the memory embedder: give one`);
    else providers.openAiEmbeddings = { baseUrl: v.openai_embeddings_url, model: v.openai_embeddings_model, ...(v.openai_embeddings_key !== undefined ? { apiKey: v.openai_embeddings_key } : {}) };
  }
  return {
    settings: {
      runtime,
      host,
      port: v.port ?? 8787,
      demo: v.demo ?? false,
      smtp,
      logLevel: v.log_level ?? 'info',
      shutdownTimeoutMs: parseDuration(v.shutdown_timeout ?? '30s'),
      providers,
    },
    errors,
  };
}
