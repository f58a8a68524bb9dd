import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseServeArgs } from '../../src/cli/serve-command.js';
import { createRuntime } from '../../src/index.js';

describe('agent-services serve --issuer-key', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'issuer-key-'));

  it('signs credentials with the given private JWK, so they verify across restarts', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const jwk = privateKey.export({ format: 'jwk' });
    const file = path.join(dir, 'issuer.jwk');
    writeFileSync(file, JSON.stringify(jwk));
    const first = await createRuntime(parseServeArgs(['--live', '--admin-token', 't', '--issuer-key', file]).runtime);
    const second = await createRuntime(parseServeArgs(['--live', '--admin-token', 't', '--issuer-key', file]).runtime);
    const keyOf = async (runtime: typeof first) => (await runtime.anonymous().identity.didDocument()).verificationMethod[0]!.publicKeyJwk;
    expect((await keyOf(first)).x).toBe(jwk.x);
    expect((await keyOf(second)).x).toBe(jwk.x);
  });

  it('refuses a file that is not a private Ed25519 JWK, naming the file', async () => {
    const file = path.join(dir, 'not-a-key.json');
    writeFileSync(file, '{"kty":"RSA"}');
    await expect(createRuntime(parseServeArgs(['--issuer-key', file]).runtime)).rejects.toThrow(`--issuer-key ${file}: not a private Ed25519 JWK`);
  });
});

describe('agent-services serve --smtp-auth and --smtp-rate', () => {
  it('configure the SMTP listener edge: credentials split at the first colon, a rate per connection', () => {
    const parsed = parseServeArgs(['--smtp-port', '0', '--smtp-auth', 'relay:pa:ss', '--smtp-rate', '120']);
    expect(parsed.runtime.email?.smtp).toEqual({ host: '127.0.0.1', port: 0, auth: { user: 'relay', pass: 'pa:ss' }, maxMessagesPerMinute: 120 });
    expect(parseServeArgs(['--smtp-port', '2525']).runtime.email?.smtp).toEqual({ host: '127.0.0.1', port: 2525 });
    expect(parseServeArgs([]).runtime.email).toBeUndefined();
  });

  it('refuses credentials without a colon, a rate that is not a positive integer, and either without --smtp-port', () => {
    expect(() => parseServeArgs(['--smtp-port', '0', '--smtp-auth', 'relay'])).toThrow('--smtp-auth must be USER:PASSWORD');
    expect(() => parseServeArgs(['--smtp-port', '0', '--smtp-auth', ':x'])).toThrow('--smtp-auth must be USER:PASSWORD');
    expect(() => parseServeArgs(['--smtp-port', '0', '--smtp-rate', '0'])).toThrow('--smtp-rate must be a positive integer');
    expect(() => parseServeArgs(['--smtp-port', '0', '--smtp-rate', 'fast'])).toThrow('--smtp-rate must be a positive integer');
    expect(() => parseServeArgs(['--smtp-auth', 'a:b'])).toThrow('need --smtp-port');
  });
});

describe('agent-services serve --smtp-relay', () => {
  it('hands the relay to the runtime, beside the listener, and the runtime builds the transport', async () => {
    const parsed = parseServeArgs(['--smtp-relay', 'smtp://mx.example.test:2525', '--smtp-port', '0']).runtime;
    expect(parsed.email).toEqual({ relay: 'smtp://mx.example.test:2525', smtp: { host: '127.0.0.1', port: 0 } });
    expect(parseServeArgs(['--smtp-relay', 'smtp://mx.example.test:2525']).runtime.email).toEqual({ relay: 'smtp://mx.example.test:2525' });
    await expect(createRuntime(parseServeArgs(['--smtp-relay', 'ftp://nowhere']).runtime)).rejects.toThrow();
  });
});

describe('agent-services serve --request-timeout', () => {
  it("sets the runtime's requestTimeoutMs from a duration, and refuses one that is not", () => {
    expect(parseServeArgs(['--request-timeout', '30s']).runtime.requestTimeoutMs).toBe(30_000);
    expect(parseServeArgs(['--request-timeout', '500ms']).runtime.requestTimeoutMs).toBe(500);
    expect(parseServeArgs([]).runtime.requestTimeoutMs).toBeUndefined();
    expect(() => parseServeArgs(['--request-timeout', 'soon'])).toThrow(/--request-timeout: expected a duration/);
  });
});
