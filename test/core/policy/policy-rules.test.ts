import { describe, expect, it } from 'vitest';
import { countryOf, domainMatches, recipientMatches, utcDay } from '../../../src/core/policy/policy-rules.js';

const DOMAIN = 'agents.test';
const to = (text: string, agentName: string | null = null) => ({ to: text, agentName, serviceDomain: DOMAIN });

describe('recipient patterns', () => {
  it('name an agent in any spelling of handle, handle with suffix or email', () => {
    for (const pattern of ['bob', 'bob.agents.test', 'bob@agents.test', 'BOB']) {
      for (const written of ['bob', 'bob.agents.test', 'bob@agents.test']) expect(recipientMatches(pattern, to(written, 'bob')), `${pattern} / ${written}`).toBe(true);
    }
    expect(recipientMatches('bob', to('carol', 'carol'))).toBe(false);
    // A handle pattern of another domain is not this service's agent.
    expect(recipientMatches('bob@other.test', to('bob', 'bob'))).toBe(false);
  });

  it('compare EVM addresses case-insensitively, exactly or by prefix, and other forms exactly', () => {
    const evm = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    expect(recipientMatches(evm.toLowerCase(), to(evm))).toBe(true);
    expect(recipientMatches('0x5AAEB*', to(evm))).toBe(true);
    expect(recipientMatches('0x5aaec*', to(evm))).toBe(false);
    expect(recipientMatches('iban:DE*', to('iban:DE89370400440532013000'))).toBe(true);
    expect(recipientMatches('iban:de*', to('iban:DE89370400440532013000'))).toBe(false);
    expect(recipientMatches('iban:GB82WEST12345698765432', to('iban:GB82WEST12345698765432'))).toBe(true);
    expect(recipientMatches('*', to('anything'))).toBe(true);
  });
});

describe('mail domains', () => {
  it('match exactly, or with a leading dot as a suffix for subdomains only, ignoring case', () => {
    expect(domainMatches('example.com', 'a@Example.COM')).toBe(true);
    expect(domainMatches('example.com', 'a@sub.example.com')).toBe(false);
    expect(domainMatches('.corp.test', 'a@eu.corp.test')).toBe(true);
    expect(domainMatches('.corp.test', 'a@corp.test')).toBe(false);
    expect(domainMatches('.corp.test', 'a@notcorp.test')).toBe(false);
  });
});

describe('countries and days', () => {
  it('finds the country of an E.164 number', () => {
    expect(countryOf('+14155550100')).toBe('US');
    expect(countryOf('+442071838750')).toBe('GB');
    expect(countryOf('+4930123456')).toBe('DE');
  });

  it('cuts days at 00:00 UTC', () => {
    expect(utcDay(Date.parse('2026-01-01T23:59:59.999Z'))).toBe('2026-01-01');
    expect(utcDay(Date.parse('2026-01-02T00:00:00.000Z'))).toBe('2026-01-02');
  });
});
