import { describe, expect, it } from 'vitest';
import { isServiceAddress, isValidAddress, localMailboxName } from '../../../src/core/email/address.js';

describe('isValidAddress (RFC 5322 addr-spec)', () => {
  it.each([
    'bob@example.com',
    "o'brien@example.co.uk",
    'user+tag@sub.example.org',
    'a.b.c@x-y.example',
    '"john doe"@example.com',
    '"quoted\\"quote"@example.com',
    "!#$%&'*+/=?^_`{|}~-@example.com",
    'root@localhost',
    `${'a'.repeat(64)}@example.com`,
  ])('accepts %s', (address) => {
    expect(isValidAddress(address)).toBe(true);
  });

  it.each([
    ['no @', 'bob.example.com'],
    ['an empty local part', '@example.com'],
    ['an empty domain', 'bob@'],
    ['a display name', 'Bob <bob@example.com>'],
    ['white space', 'bo b@example.com'],
    ['a leading dot', '.bob@example.com'],
    ['a trailing dot in the local part', 'bob.@example.com'],
    ['two dots in a row', 'bo..b@example.com'],
    ['two @', 'bob@foo@example.com'],
    ['a label starting with a hyphen', 'bob@-example.com'],
    ['a label ending with a hyphen', 'bob@example-.com'],
    ['an empty label', 'bob@example..com'],
    ['a trailing dot in the domain', 'bob@example.com.'],
    ['an underscore in the domain', 'bob@exa_mple.com'],
    ['a 65-character local part', `${'a'.repeat(65)}@example.com`],
    ['a 64-character label', `bob@${'a'.repeat(64)}.com`],
    ['more than 254 characters', `bob@${Array.from({ length: 5 }, () => 'a'.repeat(60)).join('.')}.com`],
    ['non-ASCII', 'jöhn@example.com'],
    ['a line break', 'bob@example.com\r\nBcc: eve@example.com'],
    ['an unterminated quote', '"bob@example.com'],
    ['a domain literal', 'bob@[127.0.0.1]'],
    ['the empty string', ''],
  ])('refuses %s', (_what, address) => {
    expect(isValidAddress(address)).toBe(false);
  });
});

describe('localMailboxName', () => {
  it('maps an address of the service domain to the agent name, case-insensitively', () => {
    expect(localMailboxName('bob@agents.test', 'agents.test')).toBe('bob');
    expect(localMailboxName('Bob@Agents.TEST', 'agents.test')).toBe('bob');
  });

  it('reaches the same mailbox through a +tag sub-address', () => {
    expect(localMailboxName('bob+invoices@agents.test', 'agents.test')).toBe('bob');
  });

  it("answers '' for a service address that cannot name an agent, and undefined outside the service", () => {
    expect(localMailboxName('b@agents.test', 'agents.test')).toBe('');
    expect(localMailboxName('bob.agents.test@agents.test', 'agents.test')).toBe('');
    expect(localMailboxName('bob@example.com', 'agents.test')).toBeUndefined();
    expect(localMailboxName('bob@sub.agents.test', 'agents.test')).toBeUndefined();
    expect(isServiceAddress('x@agents.test', 'agents.test')).toBe(true);
    expect(isServiceAddress('x@example.com', 'agents.test')).toBe(false);
  });
});
