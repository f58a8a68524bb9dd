import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configMain } from '../../src/cli/config-command.js';
import { parseServeArgs } from '../../src/cli/serve-command.js';
import { SERVE_OPTIONS, flagOf } from '../../src/cli/config/serve-options.js';
import { SERVE_USAGE } from '../../src/cli/usage.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'config-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a file in the test's directory and answers its path. */
function file(name: string, content: unknown): string {
  const at = path.join(dir, name);
  writeFileSync(at, typeof content === 'string' ? content : JSON.stringify(content));
  return at;
}

/** Runs `agent-services config ...` in-process; answers its exit code and what it printed. */
function config(args: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = configMain(
    args,
    (line) => out.push(line),
    (line) => err.push(line),
    env,
  );
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('serve configuration: one model for flags, the file and AGENT_SERVICES_* variables', () => {
  it('reads port, seed, domain and token from the file; a variable beats the file and a flag beats the variable', () => {
    const at = file('basic.json', { port: 9001, seed: 7, service_domain: 'corp.example', admin_token: 'from-file', live: true });
    const fromFile = parseServeArgs(['--config', at], {});
    expect(fromFile).toMatchObject({ port: 9001, runtime: { seed: 7, serviceDomain: 'corp.example', adminToken: 'from-file', mode: 'live' } });

    const env = { AGENT_SERVICES_PORT: '9002', AGENT_SERVICES_SERVICE_DOMAIN: 'env.example' };
    expect(parseServeArgs(['--config', at], env)).toMatchObject({ port: 9002, runtime: { serviceDomain: 'env.example', seed: 7 } });
    expect(parseServeArgs(['--config', at, '--port', '9003'], env)).toMatchObject({ port: 9003 });
    expect(parseServeArgs([], { AGENT_SERVICES_CONFIG: at }).port).toBe(9001);
  });

  it('takes a secret from <key>_file in the file or AGENT_SERVICES_<KEY>_FILE, without its trailing newline', () => {
    const secret = file('token.txt', 's3cret-token\n');
    expect(parseServeArgs(['--config', file('secret.json', { admin_token_file: secret })], {}).runtime.adminToken).toBe('s3cret-token');
    expect(parseServeArgs([], { AGENT_SERVICES_ADMIN_TOKEN_FILE: secret }).runtime.adminToken).toBe('s3cret-token');
    expect(() => parseServeArgs([], { AGENT_SERVICES_ADMIN_TOKEN_FILE: path.join(dir, 'missing') })).toThrow(/AGENT_SERVICES_ADMIN_TOKEN_FILE: .*missing cannot be read \(ENOENT\)/);
  });

  it('chooses real providers without code: Twilio with its number pool, an embeddings endpoint, a relay', () => {
    const settings = parseServeArgs(
      [
        '--config',
        file('providers.json', {
          twilio_account_sid: 'AC123',
          twilio_auth_token: 'tw-token',
          base_url: 'https://agents.example.com',
          twilio_numbers: ['+14155552671', '+14155552672'],
          openai_embeddings_url: 'https://api.openai.com',
          openai_embeddings_model: 'text-embedding-3-small',
          openai_embeddings_key: 'sk-openai',
          smtp_relay: 'smtp://user:pass@relay.example.com:587',
        }),
      ],
      {},
    );
    expect(settings.providers).toEqual({
      twilio: { accountSid: 'AC123', authToken: 'tw-token', callbackBaseUrl: 'https://agents.example.com' },
      openAiEmbeddings: { baseUrl: 'https://api.openai.com', model: 'text-embedding-3-small', apiKey: 'sk-openai' },
    });
    expect(settings.runtime).toMatchObject({ baseUrl: 'https://agents.example.com', phone: { numberPool: ['+14155552671', '+14155552672'] }, email: { relay: 'smtp://user:pass@relay.example.com:587' } });
  });

  it('has a key for every serve flag, and every flag in the help', () => {
    for (const key of Object.keys(SERVE_OPTIONS)) {
      expect(key).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(SERVE_USAGE).toContain(`--${flagOf(key)}`);
    }
  });
});

describe('agent-services config schema', () => {
  it('prints a JSON Schema that accepts a complete file and refuses unknown keys and wrong types', () => {
    const { code, stdout } = config(['schema']);
    expect(code).toBe(0);
    const schema = JSON.parse(stdout) as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['port', 'service_domain', 'admin_token', 'admin_token_file', 'twilio_numbers', 'shutdown_timeout']));
    const validate = new Ajv2020.default({ strict: false }).compile(schema);
    expect(validate({ port: 8787, live: true, service_domain: 'x.example', webhook: ['https://h.example/=s'], log_level: 'warn' })).toBe(true);
    expect(validate({ port: 'eighty' })).toBe(false);
    expect(validate({ colour: 'red' })).toBe(false);
    expect(validate({ log_level: 'loud' })).toBe(false);
  });
});

describe('agent-services config check', () => {
  it('prints the resolved configuration with every secret masked', () => {
    const at = file('check.json', { port: 8080, admin_token: 'tok-abc', smtp_relay: 'smtp://u:relay-pass@r.example', webhook: ['https://h.example/hook=whsec_1'] });
    const { code, stdout, stderr } = config(['check', '--config', at], {
      AGENT_SERVICES_OPENAI_EMBEDDINGS_KEY: 'sk-embed',
      AGENT_SERVICES_OPENAI_EMBEDDINGS_URL: 'http://127.0.0.1:1',
      AGENT_SERVICES_OPENAI_EMBEDDINGS_MODEL: 'm',
    });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const printed = JSON.parse(stdout) as Record<string, unknown>;
    expect(printed).toMatchObject({ port: 8080, admin_token: '********', smtp_relay: '********', webhook: '********', openai_embeddings_key: '********', log_level: 'info', shutdown_timeout: '30s' });
    for (const secret of ['tok-abc', 'relay-pass', 'whsec_1', 'sk-embed']) expect(stdout).not.toContain(secret);
  });

  it('exits 1 naming each bad key, wherever it came from, and never a secret', () => {
    const at = file('bad.json', { port: 'eighty', colour: 'red', log_level: 'loud', webhook: ['no-equals-secret-xyz'] });
    const { code, stdout, stderr } = config(['check', '--config', at, '--shutdown-timeout', 'soon'], { AGENT_SERVICES_SANDBOX: 'docker' });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    for (const named of [
      /port: /,
      /colour: is not a setting of serve/,
      /log_level: /,
      /--shutdown-timeout must be a duration/,
      /AGENT_SERVICES_SANDBOX must be wasm or bubblewrap, got "docker"/,
      /webhook expects URL=SECRET/,
    ]) {
      expect(stderr).toMatch(named);
    }
    expect(stderr).not.toContain('no-equals-secret-xyz');
    expect(stderr.split('\n').length).toBe(6);
  });

  it('names the settings that only work together', () => {
    const { code, stderr } = config(['check', '--twilio-account-sid', 'AC1', '--smtp-auth', 'u:p']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/twilio_account_sid and twilio_auth_token go together/);
    expect(stderr).toMatch(/--smtp-auth and --smtp-rate need --smtp-port/);
    expect(stderr).not.toContain('u:p');
  });
});

describe('the production file of docs/operating.md', () => {
  it('passes config check as written (its secret files stood in for)', async () => {
    const { readFileSync } = await import('node:fs');
    const doc = readFileSync(new URL('../../docs/operating.md', import.meta.url), 'utf8');
    const block = /```json\n(\{\n {2}"\$schema"[\s\S]*?\n\})\n```/.exec(doc)![1]!;
    const credentials = '/run/credentials/agent-services.service/';
    for (const [name, value] of [
      ['admin_token', 'tok'],
      ['card_vault_key', 'ab'.repeat(32)],
      ['smtp_relay', 'smtp://u:p@relay.example:587'],
      ['twilio_auth_token', 'tw'],
      ['openai_key', 'sk-x'],
    ] as const) {
      file(name, `${value}\n`);
    }
    const at = file('production.json', block.replaceAll(credentials, `${dir}/`));
    const { code, stdout, stderr } = config(['check', '--config', at]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(stdout)).toMatchObject({ live: true, admin_token: '********', twilio_numbers: ['+14155552671', '+14155552672', '+14155552673'] });
  });
});
