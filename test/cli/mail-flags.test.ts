import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dnsRecordsCommand } from '../../src/cli/dns-records-command.js';
import { parseServeArgs } from '../../src/cli/serve-command.js';
import { readDkimKey } from '../../src/providers/mail/auth/dkim-key.js';
import { KEYS, TLS } from '../providers/mail/auth/fixtures.js';

const dir = mkdtempSync(path.join(tmpdir(), 'mail-flags-'));
const file = (name: string, content: string) => {
  const full = path.join(dir, name);
  writeFileSync(full, content);
  return full;
};
const rsa = file('rsa.pem', KEYS.rsa);
const ed = file('ed.pem', KEYS.ed25519);
const short = file('short.pem', KEYS.rsa1024);
const cert = file('tls.crt', TLS.cert);
const key = file('tls.key', TLS.key);

describe('agent-services serve: the flags of mail on the internet', () => {
  it('reads the DKIM key and selector, the certificate, require-TLS, enforce-DMARC and the DNS server', () => {
    const { runtime } = parseServeArgs([
      '--smtp-port',
      '0',
      '--smtp-relay',
      'smtp://relay.example.net:587',
      '--dkim-key',
      ed,
      '--dkim-selector',
      'mail-2026',
      '--smtp-tls-cert',
      cert,
      '--smtp-tls-key',
      key,
      '--smtp-require-tls',
      '--smtp-enforce-dmarc',
      '--dns-server',
      '127.0.0.1:5353',
    ]);
    expect(runtime.email?.dkim).toEqual({ privateKey: KEYS.ed25519, selector: 'mail-2026' });
    expect(runtime.email?.smtp).toMatchObject({ tls: { cert: TLS.cert, key: TLS.key }, requireTls: true, enforceDmarc: true, dnsServer: '127.0.0.1:5353' });
    expect(parseServeArgs(['--smtp-relay', 'smtp://relay.example.net', '--dkim-key', rsa]).runtime.email?.dkim?.selector).toBe('agents');
  });

  it.each([
    [['--dkim-key', rsa], /--dkim-key needs --smtp-relay/],
    [['--dkim-key', short], /--dkim-key .*RSA of 1024 bits/],
    [['--dkim-key', path.join(dir, 'missing.pem')], /--dkim-key: cannot read .* \(ENOENT\)/],
    [['--dkim-key', cert], /--dkim-key .*not a PEM private key/],
    [['--dkim-selector', 'x'], /--dkim-selector needs --dkim-key/],
    [['--smtp-relay', 'smtp://r.example', '--dkim-key', rsa, '--dkim-selector', 'bad selector'], /--dkim-selector must be a DNS label/],
    [['--smtp-port', '0', '--smtp-tls-cert', cert], /--smtp-tls-cert and --smtp-tls-key go together/],
    [['--smtp-port', '0', '--smtp-require-tls'], /--smtp-require-tls needs --smtp-tls-cert/],
    [['--smtp-port', '0', '--smtp-tls-cert', cert, '--smtp-tls-key', rsa], /--smtp-tls-cert .* and --smtp-tls-key .*:/],
    [['--smtp-enforce-dmarc'], /need --smtp-port/],
    [['--smtp-port', '0', '--dns-server', 'dns.example.com:53'], /--dns-server must be an IP address/],
    [['--smtp-port', '0', '--dns-server', '127.0.0.1:70000'], /--dns-server must be an IP address/],
  ])('refuses %j, saying why', (args, message) => {
    expect(() => parseServeArgs(args)).toThrow(message);
  });
});

describe('agent-services dns-records', () => {
  const records = (args: string[]) => {
    const lines: string[] = [];
    dnsRecordsCommand(args, (line) => lines.push(line));
    return lines;
  };

  it("prints MX, SPF, DKIM with the key's real public key (RSA split into strings of 255 bytes) and DMARC", () => {
    const lines = records(['--service-domain', 'agents.example.com', '--dkim-key', rsa]);
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe('agents.example.com. MX 10 mx.agents.example.com.');
    expect(lines[1]).toBe('agents.example.com. TXT "v=spf1 mx -all"');
    expect(lines[3]).toBe('_dmarc.agents.example.com. TXT "v=DMARC1; p=quarantine; rua=mailto:postmaster@agents.example.com"');
    const dkim = /^agents\._domainkey\.agents\.example\.com\. TXT ((?:"[^"]*" ?)+)$/.exec(lines[2]!)!;
    const strings = [...dkim[1]!.matchAll(/"([^"]*)"/g)].map((match) => match[1]!);
    expect(strings.length).toBeGreaterThan(1);
    expect(strings.every((part) => Buffer.byteLength(part) <= 255)).toBe(true);
    expect(strings.join('')).toBe(`v=DKIM1; k=rsa; p=${readDkimKey(KEYS.rsa).publicKey}`);
  });

  it('publishes an Ed25519 key raw (RFC 8463), the MX host and selector given, and the relay in SPF', () => {
    expect(records(['--service-domain', 'agents.example.com', '--dkim-key', ed, '--dkim-selector', 's1', '--smtp-host', 'mail.example.com', '--smtp-relay', 'smtp://u:p@relay.example.net:587'])).toEqual([
      'agents.example.com. MX 10 mail.example.com.',
      'agents.example.com. TXT "v=spf1 mx a:relay.example.net -all"',
      `s1._domainkey.agents.example.com. TXT "v=DKIM1; k=ed25519; p=${readDkimKey(KEYS.ed25519).publicKey}"`,
      '_dmarc.agents.example.com. TXT "v=DMARC1; p=quarantine; rua=mailto:postmaster@agents.example.com"',
    ]);
    expect(records(['--service-domain', 'a.example', '--smtp-relay', 'smtp://192.0.2.25'])[1]).toBe('a.example. TXT "v=spf1 mx ip4:192.0.2.25 -all"');
    // Without a key there is no DKIM record to print.
    expect(records(['--service-domain', 'a.example'])).toHaveLength(3);
  });

  it.each([
    [[], /--service-domain is required/],
    [['--service-domain', 'not a domain'], /--service-domain must be a domain name/],
    [['--service-domain', 'a.example', '--smtp-host', '192.0.2.1'], /--smtp-host must be the host name/],
    [['--service-domain', 'a.example', '--dkim-key', short], /RSA of 1024 bits/],
    [['--service-domain', 'a.example', '--smtp-relay', 'nope'], /--smtp-relay must be a URL/],
    [['--service-domain', 'a.example', '--colour'], /Unknown option '--colour'/],
  ])('refuses %j', (args, message) => {
    expect(() => records(args)).toThrow(message);
  });
});
