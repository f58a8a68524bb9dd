import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { KEYS, TLS } from '../providers/mail/auth/fixtures.js';
import { CLI_TEST_TIMEOUT_MS, killAll, launch, runToEnd, waitForLine } from './cli-process.js';
import { ensureBuilt } from './ensure-built.js';

const dir = mkdtempSync(path.join(tmpdir(), 'serve-mail-'));
const file = (name: string, content: string) => {
  const full = path.join(dir, name);
  writeFileSync(full, content);
  return full;
};

let dns: TestDnsServer;
beforeAll(async () => {
  await ensureBuilt();
  dns = await startDnsServer({ 'example.com': { TXT: ['v=spf1 ip4:127.0.0.1 -all'] }, '_dmarc.example.com': { TXT: ['v=DMARC1; p=reject'] } });
}, CLI_TEST_TIMEOUT_MS);
afterAll(async () => {
  killAll();
  await dns?.close();
});

describe('agent-services, mail on the internet, as a user runs it', () => {
  it(
    'dns-records prints the four records',
    async (t) => {
      const { code, stdout } = await runToEnd(t, ['dns-records', '--service-domain', 'agents.example.com', '--dkim-key', file('ed.pem', KEYS.ed25519)]);
      expect(code).toBe(0);
      expect(
        stdout
          .trim()
          .split('\n')
          .map((line) => line.split(' ').slice(0, 2).join(' ')),
      ).toEqual(['agents.example.com. MX', 'agents.example.com. TXT', 'agents._domainkey.agents.example.com. TXT', '_dmarc.agents.example.com. TXT']);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'serve --smtp-tls-cert --smtp-tls-key --smtp-require-tls --smtp-enforce-dmarc --dns-server takes mail over STARTTLS and refuses a p=reject forgery',
    async (t) => {
      const args = [
        'serve',
        '--port',
        '0',
        '--smtp-port',
        '0',
        '--smtp-tls-cert',
        file('tls.crt', TLS.cert),
        '--smtp-tls-key',
        file('tls.key', TLS.key),
        '--smtp-require-tls',
        '--smtp-enforce-dmarc',
        '--dns-server',
        dns.address,
      ];
      const server = launch(t, args);
      await waitForLine(server, /smtp listening on .*\n/, 'serve with TLS');
      const lines = server.stdout().split('\n');
      const url = lines[0]!.slice('listening on '.length);
      const port = Number(
        lines
          .find((line) => line.startsWith('smtp listening on '))!
          .split(':')
          .pop(),
      );
      const created = (await (await fetch(`${url}/_sim/agents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bob' }) })).json()) as { api_key: string };
      const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, requireTLS: true, tls: { ca: TLS.cert, servername: 'mx.agents.test' } });
      try {
        await transport.sendMail({ envelope: { from: 'boss@example.com', to: ['bob@agents.test'] }, raw: 'From: boss@example.com\r\nTo: bob@agents.test\r\nSubject: real\r\n\r\nhello\r\n' });
        await expect(
          transport.sendMail({ envelope: { from: 'mallory@attacker.test', to: ['bob@agents.test'] }, raw: 'From: boss@example.com\r\nTo: bob@agents.test\r\nSubject: forged\r\n\r\nwire money\r\n' }),
        ).rejects.toMatchObject({ responseCode: 550 });
      } finally {
        transport.close();
      }
      const headers = { authorization: `Bearer ${created.api_key}` };
      const listing = (await (await fetch(`${url}/v1/email/messages`, { headers })).json()) as { messages: Array<{ id: string; subject: string }> };
      expect(listing.messages.map((message) => message.subject)).toEqual(['real']);
      const message = (await (await fetch(`${url}/v1/email/messages/${listing.messages[0]!.id}`, { headers })).json()) as { authentication: unknown };
      expect(message.authentication).toEqual({ spf: 'pass', dkim: [], dmarc: 'pass', from_domain: 'example.com' });
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
