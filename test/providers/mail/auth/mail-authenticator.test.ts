import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dnsResolver } from '../../../../src/providers/mail/auth/dns-resolver.js';
import { MailAuthenticator } from '../../../../src/providers/mail/auth/mail-authenticator.js';
import { startDnsServer, type TestDnsServer } from '../../../support/dns-server.js';
import { plainMessage, senderZone, signed } from './fixtures.js';

describe('MailAuthenticator (SPF, DKIM and DMARC with mailauth, against a test DNS server)', () => {
  let dns: TestDnsServer;
  let authenticator: MailAuthenticator;

  beforeEach(async () => {
    dns = await startDnsServer(senderZone());
    authenticator = new MailAuthenticator('agents.test', dnsResolver({ server: dns.address }));
  });
  afterEach(() => dns.close());

  it('reads pass for a DKIM-signed message sent from an address its SPF allows', async () => {
    const checked = await authenticator.check(await signed(plainMessage('boss@example.com')), { ip: '127.0.0.1', helo: 'mail.example.com', sender: 'boss@example.com' });
    expect(checked.verdict).toEqual({ spf: 'pass', dkim: [{ domain: 'example.com', selector: 'sel', result: 'pass' }], dmarc: 'pass', from_domain: 'example.com' });
    expect(checked.dmarcPolicy).toBe('reject');
    expect(checked.resultsHeader).toMatch(
      /^agents\.test; dkim=pass header\.d=example\.com .*header\.s=sel .*; spf=pass smtp\.mailfrom=boss@example\.com smtp\.helo=mail\.example\.com; dmarc=pass .*header\.from=example\.com/,
    );
    expect(checked.resultsHeader).not.toMatch(/[\r\n]/);
    // Every question went to the test's server.
    expect(dns.asked).toEqual(expect.arrayContaining(['example.com TXT', 'sel._domainkey.example.com TXT', '_dmarc.example.com TXT']));
  });

  it('reads dkim fail once the signed body is altered, and DMARC still passes on aligned SPF', async () => {
    const original = await signed(plainMessage('boss@example.com'));
    const altered = Buffer.from(original.toString('utf8').replace('10,000', '90,000'));
    const checked = await authenticator.check(altered, { ip: '127.0.0.1', helo: 'mail.example.com', sender: 'boss@example.com' });
    expect(checked.verdict.dkim).toEqual([{ domain: 'example.com', selector: 'sel', result: 'fail' }]);
    expect(checked.verdict.dmarc).toBe('pass');
  });

  it('reads fail for mail claiming a From domain it was not sent or signed for', async () => {
    const checked = await authenticator.check(plainMessage('boss@example.com'), { ip: '127.0.0.1', helo: 'attacker.test', sender: 'mallory@attacker.test' });
    // SPF passes for the envelope's own domain, which does not align with example.com.
    expect(checked.verdict).toEqual({ spf: 'pass', dkim: [], dmarc: 'fail', from_domain: 'example.com' });
    expect(checked.dmarcPolicy).toBe('reject');
    const fromWrongAddress = await authenticator.check(plainMessage('boss@example.com'), { ip: '192.0.2.7', helo: 'x.test', sender: 'boss@example.com' });
    expect(fromWrongAddress.verdict.spf).toBe('fail');
    expect(fromWrongAddress.verdict.dmarc).toBe('fail');
  });

  it('reads none where the domains publish nothing', async () => {
    const checked = await authenticator.check(plainMessage('someone@quiet.example'), { ip: '127.0.0.1', helo: 'quiet.example', sender: 'someone@quiet.example' });
    expect(checked.verdict).toEqual({ spf: 'none', dkim: [], dmarc: 'none', from_domain: 'quiet.example' });
    expect(checked.dmarcPolicy).toBeNull();
  });

  it('reads dmarc permerror for a message with From addresses of two domains, which DMARC cannot validate', async () => {
    const raw = Buffer.from('From: <boss@example.com>, <someone@attacker.test>\r\nTo: bob@agents.test\r\nSubject: s\r\n\r\nbody\r\n');
    const checked = await authenticator.check(raw, { ip: '127.0.0.1', helo: 'attacker.test', sender: 'mallory@attacker.test' });
    expect(checked.verdict.dmarc).toBe('permerror');
    expect(checked.resultsHeader).toMatch(/; dmarc=permerror$/);
  });

  it('checks the HELO name for the null sender of a bounce', async () => {
    const checked = await authenticator.check(plainMessage('MAILER-DAEMON@example.com'), { ip: '127.0.0.1', helo: 'example.com', sender: '' });
    expect(checked.verdict.spf).toBe('pass');
  });

  it('reads temperror, without throwing, when the resolver never answers', async () => {
    const silent = await startDnsServer(senderZone(), { silent: true });
    try {
      const slow = new MailAuthenticator('agents.test', dnsResolver({ server: silent.address, timeoutMs: 200 }), 200);
      const checked = await slow.check(await signed(plainMessage('boss@example.com')), { ip: '127.0.0.1', helo: 'mail.example.com', sender: 'boss@example.com' });
      expect(checked.verdict).toEqual({ spf: 'temperror', dkim: [{ domain: 'example.com', selector: 'sel', result: 'temperror' }], dmarc: 'temperror', from_domain: 'example.com' });
      // SPF and the DKIM key were asked at once; once the message's time was up, DMARC's lookup
      // failed without being sent, so a dead resolver holds a message one limit, not one per lookup.
      expect([...silent.asked].sort()).toEqual(['example.com TXT', 'sel._domainkey.example.com TXT']);
    } finally {
      await silent.close();
    }
  });

  it('reads temperror when the resolver refuses (nothing listens on its port)', async () => {
    const closed = await startDnsServer({});
    const address = closed.address;
    await closed.close();
    const refused = new MailAuthenticator('agents.test', dnsResolver({ server: address, timeoutMs: 1000 }));
    const checked = await refused.check(plainMessage('boss@example.com'), { ip: '127.0.0.1', helo: 'mail.example.com', sender: 'boss@example.com' });
    expect(checked.verdict.spf).toBe('temperror');
    expect(checked.verdict.dmarc).toBe('temperror');
  });
});
