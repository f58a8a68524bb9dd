import { configJsonSchema, printableConfig, resolveServeConfig } from './config/resolve-config.js';
import { serveSettings } from './config/serve-settings.js';
import { CONFIG_USAGE } from './usage.js';

/**
 * `agent-services config schema`: the config file's JSON Schema. `agent-services config check
 * [--config FILE] [serve flags]`: the resolved settings as JSON with secrets masked (exit 0), or
 * one line per bad setting on stderr, each naming its key (exit 1). Reads exactly what `serve`
 * would read (flags, `AGENT_SERVICES_*` variables, the file), and starts nothing.
 */
export function configMain(args: string[], out: (line: string) => void, err: (line: string) => void, env: Readonly<Record<string, string | undefined>> = process.env): number {
  const [sub, ...rest] = args;
  if (sub === 'schema' && rest.length === 0) {
    out(JSON.stringify(configJsonSchema(), null, 2));
    return 0;
  }
  if (sub === 'check') {
    let config;
    try {
      config = resolveServeConfig(rest, { env });
    } catch (error) {
      err(`agent-services config check: ${(error as Error).message}`);
      return 2;
    }
    const errors = [...config.errors, ...serveSettings(config).errors];
    if (errors.length > 0) {
      for (const line of errors) err(`agent-services config check: ${line}`);
      return 1;
    }
    out(JSON.stringify(printableConfig(config), null, 2));
    return 0;
  }
  out(CONFIG_USAGE);
  return sub === undefined || sub === '--help' || sub === '-h' ? 0 : 2;
}
