import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import type { RawValue } from './option-kinds.js';
import { flagOf, SERVE_OPTIONS, variableOf, type ServeKey, type ServeOption, type ServeValues } from './serve-options.js';

/** The configuration of `serve` once every source is read. */
export interface ResolvedConfig {
  /** The typed value of each setting given somewhere (or with a fallback). */
  values: ServeValues;
  /** Where each value came from, as named in messages: `--port`, `AGENT_SERVICES_PORT`, `PORT`, `port` (the config file). */
  sources: Partial<Record<ServeKey, string>>;
  /** One line per bad key, naming it; empty when the configuration is good. */
  errors: string[];
}

/** Where the sources are read from (tests give their own). */
export interface ConfigSources {
  env?: Readonly<Record<string, string | undefined>>;
  readText?: (path: string) => string;
}

const KEYS = Object.keys(SERVE_OPTIONS) as ServeKey[];
const OPTION = (key: ServeKey): ServeOption => SERVE_OPTIONS[key] as ServeOption;

/**
 * The config file's schema: every key of {@link SERVE_OPTIONS} with its JSON type, for each
 * secret `<key>_file` (a file holding it), and `$schema` for editors. Unknown keys are refused.
 */
export const CONFIG_FILE_SCHEMA = z.strictObject(
  Object.fromEntries([
    ['$schema', z.string().optional().describe('The JSON Schema this file follows (for editors; ignored)')] as [string, z.ZodType],
    ...KEYS.flatMap((key) => {
      const option = OPTION(key);
      const entry: [string, z.ZodType] = [key, option.kind.json.optional().describe(option.description + (option.secret ? ' (a secret: never printed)' : ''))];
      return option.secret ? [entry, [`${key}_file`, z.string().min(1).optional().describe(`A file holding ${key} (a trailing newline is dropped)`)] as [string, z.ZodType]] : [entry];
    }),
  ]),
);

/** The JSON Schema of the config file (zod 4's own conversion), for `agent-services config schema`. */
export function configJsonSchema(): Record<string, unknown> {
  return { ...z.toJSONSchema(CONFIG_FILE_SCHEMA, { io: 'input', unrepresentable: 'any' }), title: 'agent-services serve configuration' };
}

/** The `parseArgs` options of every setting, plus `--config`. */
function cliOptions() {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }> = { config: { type: 'string' } };
  for (const key of KEYS) options[flagOf(key)] = { ...OPTION(key).kind.cli };
  return options;
}

/** An environment variable's value, or undefined when it is unset or empty. */
function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** A secret's file contents without one trailing newline. @throws Error naming what failed */
function secretFrom(readText: (path: string) => string, path: string): string {
  const content = readText(path);
  return content.endsWith('\r\n') ? content.slice(0, -2) : content.endsWith('\n') ? content.slice(0, -1) : content;
}

/**
 * Reads `serve`'s settings from the command line, `AGENT_SERVICES_<KEY>` variables and the config
 * file (`--config FILE` or `AGENT_SERVICES_CONFIG`), in that order of precedence; a secret may
 * come as `<key>_file` from the file or `AGENT_SERVICES_<KEY>_FILE`. `--port` and `--host` also
 * fall back on `PORT` and `HOST` (as platforms set them) before the file. Every bad key is named,
 * not only the first.
 * @throws Error for arguments the command line does not take (an unknown flag)
 */
export function resolveServeConfig(args: string[], sources: ConfigSources = {}): ResolvedConfig {
  const env = sources.env ?? process.env;
  const readText = sources.readText ?? ((path: string) => readFileSync(path, 'utf8'));
  const { values: flags } = parseArgs({ args, strict: true, options: cliOptions() });
  const errors: string[] = [];

  let file: Record<string, unknown> = {};
  const configPath = (flags.config as string | undefined) ?? nonEmpty(env.AGENT_SERVICES_CONFIG);
  if (configPath !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readText(configPath));
    } catch (error) {
      errors.push(`config: ${configPath} is not a readable JSON file (${(error as Error).message})`);
    }
    if (parsed !== undefined) {
      const checked = CONFIG_FILE_SCHEMA.safeParse(parsed);
      if (checked.success) file = checked.data as Record<string, unknown>;
      else {
        const bad = new Set<string>();
        for (const issue of checked.error.issues) {
          const keys = issue.code === 'unrecognized_keys' ? issue.keys : [String(issue.path[0] ?? 'config')];
          for (const key of keys) {
            if (bad.has(key)) continue;
            bad.add(key);
            errors.push(issue.code === 'unrecognized_keys' ? `${key}: is not a setting of serve (in ${configPath})` : `${key}: ${issue.message} (in ${configPath})`);
          }
        }
        // The keys that were fine still count, so that every bad one is reported below too.
        if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
          file = Object.fromEntries(Object.entries(parsed).filter(([key]) => !bad.has(key) && (key in SERVE_OPTIONS || key.endsWith('_file'))));
        }
      }
    }
  }

  const values: Record<string, unknown> = {};
  const found: Partial<Record<ServeKey, string>> = {};
  for (const key of KEYS) {
    const option = OPTION(key);
    const fromFlag = flags[flagOf(key)] as RawValue | undefined;
    const variable = variableOf(key);
    let raw: RawValue | undefined;
    let source: string | undefined;
    if (fromFlag !== undefined) [raw, source] = [fromFlag, `--${flagOf(key)}`];
    else if (nonEmpty(env[variable]) !== undefined) [raw, source] = [env[variable]!, variable];
    else if (option.secret && nonEmpty(env[`${variable}_FILE`]) !== undefined) source = `${variable}_FILE`;
    else if ((key === 'port' || key === 'host') && nonEmpty(env[key.toUpperCase()]) !== undefined) [raw, source] = [env[key.toUpperCase()]!, key.toUpperCase()];
    // DATABASE_URL, as platforms set it; --data FILE (SQLite) given anywhere keeps it out.
    else if (key === 'database' && nonEmpty(env.DATABASE_URL) !== undefined && flags.data === undefined && nonEmpty(env.AGENT_SERVICES_DATA) === undefined) [raw, source] = [env.DATABASE_URL!, 'DATABASE_URL'];
    else if (file[key] !== undefined) [raw, source] = [file[key] as RawValue, key];
    else if (option.secret && file[`${key}_file`] !== undefined) source = `${key}_file`;
    if (raw === undefined && source !== undefined) {
      // A secret given as a file: by the variable's path or the config file's.
      const path = source.endsWith('_FILE') ? env[source]! : String(file[source]);
      try {
        raw = secretFrom(readText, path);
      } catch (error) {
        errors.push(`${source}: ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
        continue;
      }
    }
    if (raw === undefined) {
      if (option.fallback === undefined) continue;
      [raw, source] = [option.fallback, `--${flagOf(key)}`];
    }
    try {
      values[key] = option.kind.parse(raw);
      found[key] = source ?? key;
    } catch (error) {
      // A secret's bad value is never repeated in the message.
      const message = (error as Error).message;
      errors.push(`${source} ${option.secret ? message.replace(/, got .*$/s, '') : message}`);
    }
  }
  return { values: values as ServeValues, sources: found, errors };
}

/** The mask printed in place of a secret. */
export const MASK = '********';

/** The resolved settings as printable JSON: secrets masked, every other value as resolved. */
export function printableConfig(config: ResolvedConfig): Record<string, unknown> {
  return Object.fromEntries((Object.keys(config.values) as ServeKey[]).map((key) => [key, OPTION(key).secret ? MASK : config.values[key]]));
}
