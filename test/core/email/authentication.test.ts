import { describe, expect, it } from 'vitest';
import { internalAuthentication, withOwnResults } from '../../../src/core/email/authentication.js';
import { mailDnsRecords, txtStrings } from '../../../src/core/email/dns-records.js';

describe('Authentication-Results of incoming mail', () => {
  const own = 'agents.test; spf=pass smtp.mailfrom=a@example.com; dmarc=pass header.from=example.com';

  it('removes every header claiming the service authserv-id (any case, comments before it), keeps others after its own', () => {
    const headers = {
      Subject: 's',
      'Authentication-Results': ['agents.test; dmarc=pass', 'AGENTS.TEST; spf=pass', '(forged) agents.test ; dkim=pass', 'agents.test', 'mx.example.net; spf=neutral', 'agents.test.evil.example; dmarc=pass'].join('\n'),
    };
    expect(withOwnResults(headers, 'agents.test', own)).toEqual({
      'Authentication-Results': [own, 'mx.example.net; spf=neutral', 'agents.test.evil.example; dmarc=pass'].join('\n'),
      Subject: 's',
    });
    expect(withOwnResults(headers, 'Agents.Test', null)['Authentication-Results']).toBe('mx.example.net; spf=neutral\nagents.test.evil.example; dmarc=pass');
  });

  it('drops the header when only forgeries were there, and leaves headers without one untouched', () => {
    expect(withOwnResults({ 'authentication-results': 'agents.test; dmarc=pass', To: 'x' }, 'agents.test', null)).toEqual({ To: 'x' });
    const plain = { To: 'x' };
    expect(withOwnResults(plain, 'agents.test', null)).toBe(plain);
    expect(Object.keys(withOwnResults(plain, 'agents.test', own))).toEqual(['Authentication-Results', 'To']);
  });

  it('reads pass for mail between agents', () => {
    expect(internalAuthentication('Agents.Example.COM')).toEqual({ spf: 'pass', dkim: [], dmarc: 'pass', from_domain: 'agents.example.com' });
  });
});

describe('the records of a mail domain', () => {
  it('splits a TXT value into quoted strings of at most 255 bytes and escapes quotes', () => {
    const long = 'p='.padEnd(600, 'A');
    const strings = [...txtStrings(long).matchAll(/"([^"]*)"/g)].map((match) => match[1]!);
    expect(strings.map((part) => part.length)).toEqual([255, 255, 90]);
    expect(strings.join('')).toBe(long);
    expect(txtStrings('a "b" c\\')).toBe('"a \\"b\\" c\\\\"');
    expect(txtStrings('')).toBe('""');
  });

  it('names the relay by its kind of address in SPF', () => {
    const spf = (relayHost: string) => mailDnsRecords({ domain: 'd.example', relayHost })[1];
    expect(spf('relay.example.net')).toBe('d.example. TXT "v=spf1 mx a:relay.example.net -all"');
    expect(spf('192.0.2.1')).toBe('d.example. TXT "v=spf1 mx ip4:192.0.2.1 -all"');
    expect(spf('[2001:db8::1]')).toBe('d.example. TXT "v=spf1 mx ip6:2001:db8::1 -all"');
  });
});
