import { describe, expect, it } from 'vitest';
import { isAbaRoutingNumber, isEvmAddress, isSolanaAddress, normalizeIban, toChecksumAddress } from '../../../src/core/wallet/addresses.js';
import { parseRecipient, recipientKey } from '../../../src/core/wallet/recipients.js';

// The test vectors of EIP-55 itself.
const EIP55_MIXED = ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359', '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB', '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb'];
const EIP55_UPPER = ['0x52908400098527886E0F7030069857D2E4169EE7', '0x8617E340B3D01FA5F11F306F4090FD50E238070D'];
const EIP55_LOWER = ['0xde709f2102306220921060314715629080e2fb77', '0x27b1fdb04752bbc536007a920d24acb045561c26'];

describe('EVM addresses (EIP-55)', () => {
  it.each(EIP55_MIXED)('computes the checksum form of %s', (address) => {
    expect(toChecksumAddress(address.toLowerCase())).toBe(address);
  });

  it.each([...EIP55_MIXED, ...EIP55_UPPER, ...EIP55_LOWER])('accepts %s', (address) => {
    expect(isEvmAddress(address)).toBe(true);
  });

  it.each([
    ['a mixed-case address with one letter flipped', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD'],
    ['a mixed-case address with its first letter flipped', '0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
    ['39 hex digits', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe'],
    ['41 hex digits', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed0'],
    ['a non-hex character', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaeg'],
    ['no 0x prefix', '5aaeb6053f3e94c9b9a09f33669435e7ef1beaed'],
    ['an upper-case X', '0X5aaeb6053f3e94c9b9a09f33669435e7ef1beaed'],
  ])('refuses %s', (_what, address) => {
    expect(isEvmAddress(address)).toBe(false);
  });
});

describe('Solana addresses', () => {
  it.each(['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', '11111111111111111111111111111111', '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'])(
    'accepts %s (base58 of 32 bytes)',
    (address) => {
      expect(isSolanaAddress(address)).toBe(true);
    },
  );

  it.each([
    ['a character outside base58 (0)', 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ50A'],
    ['a character outside base58 (l)', 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5lA'],
    ['too short', 'TokenkegQfeZyiNwAJbNbGKPF'],
    ['45 characters', 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DAA'],
    ['33 bytes', 'zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz'],
  ])('refuses %s', (_what, address) => {
    expect(isSolanaAddress(address)).toBe(false);
  });
});

describe('IBANs (ISO 13616: length per country, mod-97)', () => {
  it.each([
    ['DE', 'DE89370400440532013000'],
    ['GB', 'GB82WEST12345698765432'],
    ['FR', 'FR1420041010050500013M02606'],
    ['NL', 'NL91ABNA0417164300'],
    ['ES', 'ES9121000418450200051332'],
    ['BE', 'BE68539007547034'],
    ['CH', 'CH9300762011623852957'],
    ['NO', 'NO9386011117947'],
    ['MT', 'MT84MALT011000012345MTLCAST001S'],
  ])('accepts a %s IBAN', (_country, iban) => {
    expect(normalizeIban(iban)).toBe(iban);
  });

  it('accepts spaces between groups and lower case, answering the electronic form', () => {
    expect(normalizeIban('de89 3704 0044 0532 0130 00')).toBe('DE89370400440532013000');
  });

  it.each([
    ['a wrong check digit (mod-97)', 'DE89370400440532013001'],
    ['one character short for DE', 'DE8937040044053201300'],
    ['one character long for DE', 'DE893704004405320130000'],
    ['an unknown country', 'XX89370400440532013000'],
    ['punctuation', 'DE89-3704-0044-0532-0130-00'],
    ['nothing', ''],
  ])('refuses %s', (_what, iban) => {
    expect(normalizeIban(iban)).toBeUndefined();
  });
});

describe('ABA routing numbers (weights 3, 7, 1)', () => {
  it.each(['021000021', '011000015', '026009593', '121000358', '111000025'])('accepts %s', (routing) => {
    expect(isAbaRoutingNumber(routing)).toBe(true);
  });

  it.each([
    ['a wrong check digit', '021000022'],
    ['8 digits', '02100002'],
    ['10 digits', '0210000210'],
    ['all zeros', '000000000'],
    ['a letter', '02100002a'],
  ])('refuses %s', (_what, routing) => {
    expect(isAbaRoutingNumber(routing)).toBe(false);
  });
});

describe('parseRecipient', () => {
  it.each([
    ['alice', { kind: 'handle', name: 'alice', domain: null }],
    ['alice.agents.test', { kind: 'handle', name: 'alice', domain: 'agents.test' }],
    ['Alice.Agents.Test', { kind: 'handle', name: 'alice', domain: 'agents.test' }],
    ['bob.example.com', { kind: 'handle', name: 'bob', domain: 'example.com' }],
    ['alice@agents.test', { kind: 'email', local: 'alice', domain: 'agents.test' }],
    ['someone@example.com', { kind: 'email', local: 'someone', domain: 'example.com' }],
    ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', { kind: 'evm', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' }],
    ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', { kind: 'solana', address: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' }],
    ['iban:DE89370400440532013000', { kind: 'iban', iban: 'DE89370400440532013000' }],
    ['iban:DE89 3704 0044 0532 0130 00', { kind: 'iban', iban: 'DE89370400440532013000' }],
    ['aba:021000021:123456789', { kind: 'aba', routing: '021000021', account: '123456789' }],
  ])('reads %s', (to, expected) => {
    expect(parseRecipient(to)).toEqual(expected);
  });

  it.each([
    ['a mistyped EIP-55 address', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD'],
    ['a short 0x string', '0xabc'],
    ['an invalid IBAN', 'iban:DE89370400440532013001'],
    ['an ABA number failing its checksum', 'aba:021000022:123456789'],
    ['an ABA account of 3 digits', 'aba:021000021:123'],
    ['an ABA account of 18 digits', 'aba:021000021:123456789012345678'],
    ['an ABA without account', 'aba:021000021'],
    ['a malformed email', 'alice@'],
    ['white space', ' alice'],
    ['a single character', 'a'],
    ['nothing', ''],
    ['punctuation', 'alice!'],
  ])('refuses %s', (_what, to) => {
    expect(parseRecipient(to)).toBeUndefined();
  });

  it('gives every spelling of one external recipient the same key', () => {
    const lower = parseRecipient('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')!;
    const mixed = parseRecipient('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')!;
    expect(recipientKey(lower as never)).toBe(recipientKey(mixed as never));
    expect(recipientKey(parseRecipient('iban:de89 3704 0044 0532 0130 00') as never)).toBe('iban:DE89370400440532013000');
  });
});
