import type { AddressInfo } from 'node:net';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { SMTPServer } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { dnsRecordsCommand } from '../../../src/cli/dns-records-command.js';
import { createRuntime, type Runtime } from '../../../src/index.js';
import { dnsResolver } from '../../../src/providers/mail/auth/dns-resolver.js';
import { readDkimKey } from '../../../src/providers/mail/auth/dkim-key.js';
import { startDnsServer, type TestDnsServer, type Zone } from '../../support/dns-server.js';
import { KEYS } from './auth/fixtures.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The test's own relay: keeps the raw bytes of every message. */
async function startSink(): Promise<{ port: number; raws: Buffer[]; close(): Promise<void> }> {
  const raws: Buffer[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        raws.push(Buffer.concat(chunks));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.server.address() as AddressInfo).port, raws, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The zone `agent-services dns-records` prints for `domain` and the key in `keyFile`, as a test DNS server serves it. */
function zoneOf(domain: string, keyFile: string, selector: string): Zone {
  const lines: string[] = [];
  dnsRecordsCommand(['--service-domain', domain, '--dkim-key', keyFile, '--dkim-selector', selector], (line) => lines.push(line));
  const zone: Zone = {};
  for (const line of lines) {
    const match = /^(\S+)\. TXT (.*)$/.exec(line);
    if (!match) continue;
    // Zone-file character-strings: the record's value is their concatenation.
    const value = [...match[2]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((part) => part[1]!.replace(/\\(.)/g, '$1')).join('');
    (zone[match[1]!] ??= {}).TXT = [value];
  }
  return zone;
}

describe('DKIM on every relayed message (mailauth)', () => {
  const closing: Array<() => Promise<unknown> | void> = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });

  for (const [type, pem] of [
    ['RSA 2048', KEYS.rsa],
    ['Ed25519', KEYS.ed25519],
  ] as const) {
    it(`signs with ${type} for the service domain, verifies against the record dns-records prints, and fails once the body is altered`, async () => {
      const folder = mkdtempSync(join(tmpdir(), 'dkim-'));
      const keyFile = join(folder, 'dkim.pem');
      writeFileSync(keyFile, pem);
      const sink = await startSink();
      closing.push(() => sink.close());
      const dns: TestDnsServer = await startDnsServer(zoneOf('agents.example.com', keyFile, 'mail2026'));
      closing.push(() => dns.close());
      const runtime: Runtime = await createRuntime({ seed: 2, serviceDomain: 'agents.example.com', email: { relay: `smtp://127.0.0.1:${sink.port}`, dkim: { privateKey: pem, selector: 'mail2026' } } });
      closing.push(() => runtime.close());
      const alice = runtime.agent((await runtime.createAgent({ name: 'alice' })).api_key);
      await alice.email.send({ to: ['ext@example.com'], cc: ['other@example.org'], subject: 'Quote ✓', text: 'Price: 100 USD', html: '<p>Price: 100 USD</p>' });
      expect(sink.raws).toHaveLength(1);
      const raw = sink.raws[0]!;
      const header = /^DKIM-Signature:(.*(?:\r\n[ \t].*)*)/m.exec(raw.toString('utf8'))![1]!.replace(/\s+/g, '');
      expect(header).toContain('d=agents.example.com;');
      expect(header).toContain('s=mail2026;');
      expect(header).toContain('c=relaxed/relaxed;');
      expect(header).toContain(type === 'Ed25519' ? 'a=ed25519-sha256;' : 'a=rsa-sha256;');
      const signed = /h=([^;]*);/.exec(header)![1]!.toLowerCase().split(':');
      expect(signed).toEqual(expect.arrayContaining(['from', 'to', 'cc', 'subject', 'date', 'message-id', 'mime-version', 'content-type']));

      const resolver = dnsResolver({ server: dns.address }) as never;
      const verified = await dkimVerify(raw, { resolver });
      expect(verified.results.map((result) => [result.signingDomain, result.status.result])).toEqual([['agents.example.com', 'pass']]);
      const altered = Buffer.from(raw.toString('utf8').replace(/100 USD/g, '900 USD'));
      const tampered = await dkimVerify(altered, { resolver, strict: true });
      expect(tampered.results.map((result) => result.status.result)).toEqual(['fail']);
    });
  }

  it('refuses a key that cannot sign: RSA under 2048 bits, not PEM, another type', () => {
    expect(() => readDkimKey(KEYS.rsa1024)).toThrow(/RSA of 1024 bits/);
    expect(() => readDkimKey('not a key')).toThrow(/not a PEM private key/);
    expect(readDkimKey(KEYS.ed25519).publicKey).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });
});
