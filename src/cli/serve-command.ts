import { parseArgs } from 'node:util';
import { createRuntime, DASHBOARD_PATH } from '../index.js';
import { serve } from '../http/serve.js';
import type { RuntimeOptions } from '../runtime/runtime-options.js';
import { parseWebhookFlag } from '../core/webhooks/webhook-config.js';
import { parseDuration } from '../core/shared/duration.js';
import { anyRealChain, networkFlags, resolveChains } from '../core/wallet/chain-config.js';
import { BUILT_IN_EMBEDDERS, type BuiltInEmbedder, type MemoryOptions } from '../core/memory/memory-config.js';

export { SERVE_USAGE } from './usage.js';

/** An environment variable's value, or undefined when it is unset or empty. */
function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/**
 * Parses `serve` arguments into runtime and listen options. `--port` and `--host` fall back on the
 * `PORT` and `HOST` environment variables (as platforms and `npm start` set them), then on 8787 and
 * 127.0.0.1.
 * @throws Error with a usage message
 */
export function parseServeArgs(
  args: string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): {
  runtime: RuntimeOptions;
  host: string;
  port: number;
  demo: boolean;
  smtp: { host: string; port: number } | null;
} {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      seed: { type: 'string', default: '0' },
      data: { type: 'string' },
      database: { type: 'string' },
      blobs: { type: 'string' },
      'event-retention': { type: 'string' },
      'request-timeout': { type: 'string' },
      'admin-token': { type: 'string' },
      'service-domain': { type: 'string' },
      live: { type: 'boolean', default: false },
      demo: { type: 'boolean', default: false },
      'smtp-port': { type: 'string' },
      'smtp-host': { type: 'string' },
      'smtp-auth': { type: 'string' },
      'smtp-rate': { type: 'string' },
      'smtp-relay': { type: 'string' },
      'issuer-key': { type: 'string' },
      'custody-mnemonic-file': { type: 'string' },
      chain: { type: 'string', multiple: true },
      usdc: { type: 'string', multiple: true },
      confirmations: { type: 'string', multiple: true },
      webhook: { type: 'string', multiple: true },
      sandbox: { type: 'string', default: 'wasm' },
      browser: { type: 'string', default: 'auto' },
      chromium: { type: 'string' },
      embedder: { type: 'string' },
      'embedding-model': { type: 'string' },
      'embedding-dtype': { type: 'string', default: 'fp32' },
    },
  });
  const portText = values.port ?? nonEmpty(env.PORT) ?? '8787';
  const portSource = values.port !== undefined ? '--port' : nonEmpty(env.PORT) !== undefined ? 'PORT' : '--port';
  const port = Number(portText);
  if (!/^\d{1,5}$/.test(portText) || port > 65_535) throw new Error(`${portSource} must be an integer 0..65535, got "${portText}"`);
  const host = values.host ?? nonEmpty(env.HOST) ?? '127.0.0.1';
  // --data FILE (SQLite) wins over DATABASE_URL from the environment; both flags at once are refused.
  const database = values.database ?? (values.data === undefined ? nonEmpty(env.DATABASE_URL) : undefined);
  if (values.database !== undefined && values.data !== undefined) throw new Error('give --data FILE (SQLite, one process) or --database URL (PostgreSQL), not both');
  if (values.blobs !== undefined && database === undefined) throw new Error('--blobs DIR goes with --database URL');
  const browser = values.browser;
  if (browser !== 'auto' && browser !== 'chromium' && browser !== 'simulated') throw new Error(`--browser must be auto, chromium or simulated, got "${browser}"`);
  const seed = /^-?\d+$/.test(values.seed) ? Number(values.seed) : values.seed;
  if (values.sandbox !== 'wasm' && values.sandbox !== 'bubblewrap') throw new Error(`--sandbox must be wasm or bubblewrap, got "${values.sandbox}"`);
  const embeddingDtype = values['embedding-dtype'];
  if (embeddingDtype !== 'fp32' && embeddingDtype !== 'q8') throw new Error(`--embedding-dtype must be fp32 or q8, got "${embeddingDtype}"`);
  const embedder = values.embedder;
  if (embedder !== undefined && !(BUILT_IN_EMBEDDERS as readonly string[]).includes(embedder)) throw new Error(`--embedder must be ${BUILT_IN_EMBEDDERS.join(', ')}, got "${embedder}"`);
  const memory: MemoryOptions = {
    ...(embedder !== undefined ? { embedder: embedder as BuiltInEmbedder } : {}),
    ...(values['embedding-model'] ? { embeddingModel: { folder: values['embedding-model'], dtype: embeddingDtype } } : {}),
  };
  const runtime: RuntimeOptions = {
    seed,
    mode: values.live ? 'live' : 'simulated',
    ...(values['event-retention'] !== undefined ? { eventRetention: checkedDuration('--event-retention', values['event-retention']) } : {}),
    ...(values['request-timeout'] !== undefined ? { requestTimeoutMs: parseDuration(checkedDuration('--request-timeout', values['request-timeout'])) } : {}),
    ...(values['admin-token'] ? { adminToken: values['admin-token'] } : {}),
    ...(values['service-domain'] ? { serviceDomain: values['service-domain'] } : {}),
    ...(values.webhook ? { webhooks: values.webhook.map(parseWebhookFlag) } : {}),
    ...(values['issuer-key'] ? { issuerKeyFile: values['issuer-key'] } : {}),
    ...(values.data !== undefined ? { data: values.data } : {}),
    ...(database !== undefined ? { database } : {}),
    ...(values.blobs !== undefined ? { blobsDir: values.blobs } : {}),
    ...(Object.keys(memory).length > 0 ? { memory } : {}),
    ...chainFlags(values),
    compute: { sandbox: values.sandbox },
    browser: { provider: browser, ...(values.chromium ? { chromiumPath: values.chromium } : {}) },
  };
  const smtpPort = values['smtp-port'];
  if (smtpPort !== undefined && (!/^\d{1,5}$/.test(smtpPort) || Number(smtpPort) > 65_535)) throw new Error(`--smtp-port must be an integer 0..65535, got "${smtpPort}"`);
  const smtp = smtpPort === undefined ? null : { host: values['smtp-host'] ?? host, port: Number(smtpPort) };
  const smtpAuth = values['smtp-auth'];
  const colon = smtpAuth?.indexOf(':') ?? -1;
  if (smtpAuth !== undefined && (colon <= 0 || colon === smtpAuth.length - 1)) throw new Error('--smtp-auth must be USER:PASSWORD, both non-empty');
  const smtpRate = values['smtp-rate'];
  if (smtpRate !== undefined && (!/^\d{1,9}$/.test(smtpRate) || Number(smtpRate) < 1)) throw new Error(`--smtp-rate must be a positive integer (messages a minute per connection), got "${smtpRate}"`);
  if (!smtp && (smtpAuth !== undefined || smtpRate !== undefined)) throw new Error('--smtp-auth and --smtp-rate need --smtp-port');
  if (smtp || values['smtp-relay']) {
    runtime.email = {
      ...(values['smtp-relay'] ? { relay: values['smtp-relay'] } : {}),
      ...(smtp
        ? {
            smtp: {
              ...smtp,
              ...(smtpAuth !== undefined ? { auth: { user: smtpAuth.slice(0, colon), pass: smtpAuth.slice(colon + 1) } } : {}),
              ...(smtpRate !== undefined ? { maxMessagesPerMinute: Number(smtpRate) } : {}),
            },
          }
        : {}),
    };
  }
  return { runtime, host, port, demo: values.demo, smtp };
}

/** The wallet options of `--chain`, `--usdc`, `--confirmations` and `--custody-mnemonic-file`, checked. @throws Error naming the flag */
function chainFlags(values: { chain?: string[]; usdc?: string[]; confirmations?: string[]; 'custody-mnemonic-file'?: string }): Pick<RuntimeOptions, 'wallet'> {
  const chains = networkFlags('--chain', values.chain);
  const usdc = networkFlags('--usdc', values.usdc);
  const depthText = networkFlags('--confirmations', values.confirmations);
  const confirmations = depthText && Object.fromEntries(Object.entries(depthText).map(([network, text]) => [network, /^\d{1,4}$/.test(text) ? Number(text) : Number.NaN]));
  const wallet = {
    ...(chains ? { chains } : {}),
    ...(usdc ? { usdc } : {}),
    ...(confirmations ? { confirmations } : {}),
    ...(values['custody-mnemonic-file'] !== undefined ? { custodyMnemonicFile: values['custody-mnemonic-file'] } : {}),
  };
  resolveChains(wallet);
  if (anyRealChain(resolveChains(wallet)) && wallet.custodyMnemonicFile === undefined) throw new Error('--chain NETWORK=local or =URL needs --custody-mnemonic-file FILE');
  return Object.keys(wallet).length > 0 ? { wallet } : {};
}

/** @throws Error naming the flag when `text` is not a duration */
function checkedDuration(flag: string, text: string): string {
  try {
    parseDuration(text);
  } catch (error) {
    throw new Error(`${flag}: ${(error as Error).message}`);
  }
  return text;
}

/** Runs `agent-services serve` until SIGINT or SIGTERM. */
export async function serveCommand(args: string[], out: (line: string) => void): Promise<void> {
  const options = parseServeArgs(args);
  // The data file is opened, checked and locked before anything listens: a bad file never half-starts a server.
  const runtime = await createRuntime({ ...options.runtime, onNotice: out });
  const server = await serve(runtime, { host: options.host, port: options.port });
  let listening;
  try {
    listening = await runtime.listen();
  } catch (error) {
    await server.close();
    await runtime.close();
    throw error;
  }
  const smtp = listening.find((edge) => edge.name === 'smtp');
  const stop = async () => {
    // The areas' listeners (SMTP) are closed by runtime.close().
    await server.close();
    await runtime.close();
    process.exit(0);
  };
  // Before the first line is printed: whoever reads "listening on" may signal at once, and a
  // signal that arrives before the handlers would kill the process without the graceful close.
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  out(`listening on ${server.url}`);
  const dashboard = dashboardLine(options.runtime, server.url);
  if (dashboard) out(dashboard);
  if (smtp) out(`smtp listening on ${smtp.host.includes(':') ? `[${smtp.host}]` : smtp.host}:${smtp.port}`);
  if (options.demo) await printDemo(runtime, server.url, out);
}

/** Where the dashboard is, or null when this server does not serve it (live mode without an admin token). */
export function dashboardLine(options: RuntimeOptions, url: string): string | null {
  if (options.adminToken) return `dashboard:  ${url}${DASHBOARD_PATH}?token=<admin token> (sets a cookie; or send Authorization: Bearer <admin token>)`;
  return options.mode === 'live' ? null : `dashboard:  ${url}${DASHBOARD_PATH}`;
}

async function printDemo(runtime: Awaited<ReturnType<typeof createRuntime>>, url: string, out: (line: string) => void): Promise<void> {
  const existing =
    (await runtime
      .anonymous()
      .identity.getPublicProfile('demo')
      .catch(() => undefined)) !== undefined;
  if (existing) {
    out('demo agent: demo (already created in this data file; its API key was printed when it was made)');
    return;
  }
  const demo = await runtime.createAgent({ name: 'demo', display_name: 'Demo Agent' });
  out(`demo agent: ${demo.handle}`);
  out(`API key:    ${demo.api_key}`);
  out(`try:        curl -s -H "Authorization: Bearer ${demo.api_key}" ${url}/v1/agent`);
  out(`also:       ${url}/openapi.json   ${url}/_sim/events   ${url}/v1/agent/demo`);
}
