import { createRuntime, DASHBOARD_PATH } from '../index.js';
import { serve } from '../http/serve.js';
import type { RuntimeOptions } from '../runtime/runtime-options.js';
import { resolveServeConfig } from './config/resolve-config.js';
import { serveSettings, type ServeSettings } from './config/serve-settings.js';
import { ServiceMetrics } from '../http/service-metrics.js';
import { createRequestLogger } from '../http/request-log.js';

export { SERVE_USAGE } from './usage.js';

/**
 * Parses `serve`'s settings from the command line, `AGENT_SERVICES_<KEY>` variables and the
 * config file (`--config FILE`), into runtime and listen options. `--port` and `--host` fall back
 * on the `PORT` and `HOST` environment variables (as platforms and `npm start` set them), then on
 * 8787 and 127.0.0.1.
 * @throws Error listing every bad setting, one a line, each named as it was given
 */
export function parseServeArgs(args: string[], env: Readonly<Record<string, string | undefined>> = process.env, readText?: (path: string) => string): ServeSettings {
  const config = resolveServeConfig(args, { env, ...(readText ? { readText } : {}) });
  const { settings, errors } = serveSettings(config);
  const all = [...config.errors, ...errors];
  if (all.length > 0) throw new Error(all.join('\n'));
  return settings;
}

/**
 * Builds the providers the settings choose that are not plain runtime options (Twilio, an
 * OpenAI-compatible embeddings endpoint), loading their code only when chosen.
 */
async function withProviders(settings: ServeSettings): Promise<RuntimeOptions> {
  const { twilio, openAiEmbeddings } = settings.providers;
  const providers: NonNullable<RuntimeOptions['providers']> = {};
  if (twilio) {
    const { TwilioTelephony } = await import('../providers/telephony/twilio-telephony.js');
    const { FetchHttpClient } = await import('../providers/http/fetch-http-client.js');
    providers.telephony = new TwilioTelephony({ accountSid: twilio.accountSid, authToken: twilio.authToken, callbackBaseUrl: twilio.callbackBaseUrl!, httpClient: new FetchHttpClient() });
  }
  if (openAiEmbeddings) {
    const { OpenAICompatibleEmbedder } = await import('../providers/embeddings/openai-compatible-embedder.js');
    providers.embedder = new OpenAICompatibleEmbedder(openAiEmbeddings);
  }
  return Object.keys(providers).length > 0 ? { ...settings.runtime, providers: { ...settings.runtime.providers, ...providers } } : settings.runtime;
}

/** Runs `agent-services serve` until SIGINT or SIGTERM. */
export async function serveCommand(args: string[], out: (line: string) => void): Promise<void> {
  const options = parseServeArgs(args);
  // The data file is opened, checked and locked before anything listens: a bad file never half-starts a server.
  const runtime = await createRuntime({ ...(await withProviders(options)), onNotice: out });
  const log = createRequestLogger({ level: options.logLevel });
  const metrics = new ServiceMetrics(runtime);
  const server = await serve(runtime, { host: options.host, port: options.port, sinks: [log.sink], metrics });
  let listening;
  try {
    listening = await runtime.listen();
  } catch (error) {
    await server.close();
    await runtime.close();
    throw error;
  }
  const smtp = listening.find((edge) => edge.name === 'smtp');
  const stop = async (signal: string) => {
    log.logger.info({ signal }, 'stopping: refusing new connections, letting requests in flight finish');
    // Requests in flight finish and commit first; then the areas stop (the SMTP listener, job
    // timers, sessions) and every change is saved.
    let code = 0;
    try {
      const { cut } = await server.shutdown(options.shutdownTimeoutMs);
      if (cut > 0) log.logger.warn({ cut }, 'requests still running at the shutdown timeout were cut');
      await runtime.close();
      metrics.close();
      log.logger.info('stopped');
    } catch (error) {
      // A stop that could not save everything says so and exits non-zero, rather than hanging.
      code = 1;
      log.logger.error({ error: (error as Error)?.message ?? String(error) }, 'the stop failed');
    }
    // Every line logged so far, request lines included, is written before the process ends.
    await log.close();
    process.exit(code);
  };
  // Before the first line is printed: whoever reads "listening on" may signal at once, and a
  // signal that arrives before the handlers would kill the process without the graceful close.
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      // A second signal while requests are still finishing: the operator wants it gone now.
      log.logger.warn({ signal }, 'second signal: stopping at once');
      log.flush();
      process.exit(1);
    }
    stopping = true;
    void stop(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
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
