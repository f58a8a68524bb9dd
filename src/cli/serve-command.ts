import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createRuntime } from '../index.js';
import { serve } from '../http/serve.js';
import { listenSmtp, type RunningSmtpServer } from '../smtp/smtp-listener.js';
import { SmtpMailTransport } from '../providers/mail/smtp-mail-transport.js';
import { Ed25519IssuerKeys } from '../providers/keys/ed25519-issuer-keys.js';
import { FileBlobStore } from '../providers/blobs/file-blob-store.js';
import type { RuntimeOptions } from '../runtime/runtime-options.js';
import { parseWebhookFlag } from '../core/webhooks/webhook-config.js';
import { parseDuration } from '../core/shared/duration.js';
import { openData } from './data-file.js';

export { SERVE_USAGE } from './usage.js';

/** Loads a private Ed25519 JWK (`{kty: "OKP", crv: "Ed25519", d, x}`) for signing credentials. @throws Error naming the file */
function issuerKeyFromFile(file: string): Ed25519IssuerKeys {
  try {
    return Ed25519IssuerKeys.fromJwk(JSON.parse(readFileSync(file, 'utf8')) as { kty: string; crv: string; d: string; x: string });
  } catch (error) {
    throw new Error(`--issuer-key ${file}: not a private Ed25519 JWK (${(error as Error).message})`);
  }
}

/** Parses `serve` arguments into runtime and listen options. @throws Error with a usage message */
export function parseServeArgs(args: string[]): {
  runtime: RuntimeOptions;
  host: string;
  port: number;
  demo: boolean;
  smtp: { host: string; port: number } | null;
  /** The `--data` file, opened by {@link serveCommand} (parsing touches no file). */
  data: string | null;
} {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8787' },
      seed: { type: 'string', default: '0' },
      data: { type: 'string' },
      'event-retention': { type: 'string' },
      'request-timeout': { type: 'string' },
      'admin-token': { type: 'string' },
      'service-domain': { type: 'string' },
      live: { type: 'boolean', default: false },
      demo: { type: 'boolean', default: false },
      'smtp-port': { type: 'string' },
      'smtp-host': { type: 'string' },
      'smtp-relay': { type: 'string' },
      'issuer-key': { type: 'string' },
      webhook: { type: 'string', multiple: true },
      sandbox: { type: 'string', default: 'wasm' },
      browser: { type: 'string', default: 'auto' },
      chromium: { type: 'string' },
    },
  });
  const port = Number(values.port);
  if (!/^\d{1,5}$/.test(values.port) || port > 65_535) throw new Error(`--port must be an integer 0..65535, got "${values.port}"`);
  const browser = values.browser;
  if (browser !== 'auto' && browser !== 'chromium' && browser !== 'simulated') throw new Error(`--browser must be auto, chromium or simulated, got "${browser}"`);
  const seed = /^-?\d+$/.test(values.seed) ? Number(values.seed) : values.seed;
  if (values.sandbox !== 'wasm' && values.sandbox !== 'bubblewrap') throw new Error(`--sandbox must be wasm or bubblewrap, got "${values.sandbox}"`);
  const runtime: RuntimeOptions = {
    seed,
    mode: values.live ? 'live' : 'simulated',
    ...(values['event-retention'] !== undefined ? { eventRetention: checkedDuration('--event-retention', values['event-retention']) } : {}),
    ...(values['request-timeout'] !== undefined ? { requestTimeoutMs: parseDuration(checkedDuration('--request-timeout', values['request-timeout'])) } : {}),
    ...(values['admin-token'] ? { adminToken: values['admin-token'] } : {}),
    ...(values['service-domain'] ? { serviceDomain: values['service-domain'] } : {}),
    ...(values.webhook ? { webhooks: values.webhook.map(parseWebhookFlag) } : {}),
    compute: { sandbox: values.sandbox },
    browser: { provider: browser, ...(values.chromium ? { chromiumPath: values.chromium } : {}) },
    providers: {
      ...(values['smtp-relay'] ? { mailTransport: SmtpMailTransport.fromUrl(values['smtp-relay']) } : {}),
      ...(values['issuer-key'] ? { issuerKeys: issuerKeyFromFile(values['issuer-key']) } : {}),
    },
  };
  const smtpPort = values['smtp-port'];
  if (smtpPort !== undefined && (!/^\d{1,5}$/.test(smtpPort) || Number(smtpPort) > 65_535)) throw new Error(`--smtp-port must be an integer 0..65535, got "${smtpPort}"`);
  const smtp = smtpPort === undefined ? null : { host: values['smtp-host'] ?? values.host, port: Number(smtpPort) };
  return { runtime, host: values.host, port, demo: values.demo, smtp, data: values.data ?? null };
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
  let runtimeOptions = options.runtime;
  if (options.data !== null) {
    // Opened, checked and locked before anything listens: a bad file never half-starts a server.
    const data = await openData(options.data, options.runtime.serviceDomain ?? 'agents.test');
    if (data.notice) out(data.notice);
    runtimeOptions = { ...runtimeOptions, store: data.store, blobs: new FileBlobStore(`${data.database}.blobs`) };
  }
  let runtime: Awaited<ReturnType<typeof createRuntime>>;
  try {
    runtime = await createRuntime(runtimeOptions);
  } catch (error) {
    await runtimeOptions.store?.close?.();
    throw error;
  }
  const server = await serve(runtime, { host: options.host, port: options.port });
  const smtp: RunningSmtpServer | null = options.smtp ? await listenSmtp(runtime, options.smtp) : null;
  const stop = async () => {
    await Promise.all([server.close(), smtp?.close()]);
    await runtime.close();
    process.exit(0);
  };
  // Before the first line is printed: whoever reads "listening on" may signal at once, and a
  // signal that arrives before the handlers would kill the process without the graceful close.
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  out(`listening on ${server.url}`);
  if (smtp) out(`smtp listening on ${smtp.host.includes(':') ? `[${smtp.host}]` : smtp.host}:${smtp.port}`);
  if (options.demo) await printDemo(runtime, server.url, out);
}

async function printDemo(runtime: Awaited<ReturnType<typeof createRuntime>>, url: string, out: (line: string) => void): Promise<void> {
  const existing = (await runtime.anonymous().identity.getPublicProfile('demo').catch(() => undefined)) !== undefined;
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
