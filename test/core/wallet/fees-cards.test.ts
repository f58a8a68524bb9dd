import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ApiError } from '../../../src/core/shared/api-error.js';
import { cardNumberFromBytes, expiryDate, isLuhnValid, luhnCheckDigit } from '../../../src/core/wallet/card-number.js';
import { planSend, resolveFees } from '../../../src/core/wallet/fees.js';
import { parseRecipient } from '../../../src/core/wallet/recipients.js';
import type { Asset, Network } from '../../../src/core/wallet/assets.js';

const EVM = parseRecipient('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')!;
const SOL = parseRecipient('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')!;
const IBAN = parseRecipient('iban:DE89370400440532013000')!;
const ABA = parseRecipient('aba:021000021:123456789')!;
const HANDLE = parseRecipient('bob')!;
const fees = resolveFees();

function planError(call: () => unknown): ApiError {
  try {
    call();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('planSend (fees and networks)', () => {
  it.each([
    [EVM, 'usdc', undefined, 'base', 10_000n],
    [EVM, 'eth', undefined, 'base', 5_000_000_000_000n],
    [EVM, 'usdc', 'ethereum', 'ethereum', 500_000n],
    [EVM, 'eth', 'ethereum', 'ethereum', 200_000_000_000_000n],
    [SOL, 'usdc', undefined, 'solana', 1_000n],
    [SOL, 'sol', undefined, 'solana', 5_000n],
    [IBAN, 'usd', undefined, 'iban', 20n],
    [IBAN, 'eur', undefined, 'iban', 20n],
    [ABA, 'usd', undefined, 'aba', 25n],
    [HANDLE, 'eth', undefined, 'book', 0n],
    [HANDLE, 'usd', undefined, 'book', 0n],
  ] as const)('sends to %o in %s over %s via %s for a fee of %s minor units', (recipient, asset, network, rail, fee) => {
    expect(planSend(recipient, asset, network, fees)).toEqual({ rail, fee });
  });

  it.each([
    [EVM, 'usd'],
    [EVM, 'sol'],
    [SOL, 'eth'],
    [SOL, 'eur'],
    [IBAN, 'usdc'],
    [ABA, 'eur'],
    [ABA, 'eth'],
  ] as const)('refuses %o for %s with invalid_recipient on to', (recipient, asset) => {
    const error = planError(() => planSend(recipient, asset, undefined, fees));
    expect([error.code, error.param]).toEqual(['invalid_recipient', 'to']);
  });

  it.each([
    ['a network for fiat', HANDLE, 'usd', 'base'],
    ['a network for a bank transfer', IBAN, 'eur', 'ethereum'],
    ['solana for eth', HANDLE, 'eth', 'solana'],
    ['ethereum for sol', SOL, 'sol', 'ethereum'],
    ['solana for an EVM address', EVM, 'usdc', 'solana'],
    ['base for a Solana address', SOL, 'usdc', 'base'],
  ] as const)('refuses %s with unsupported_network on network', (_what, recipient, asset, network) => {
    const error = planError(() => planSend(recipient, asset as Asset, network as Network, fees));
    expect([error.code, error.param]).toEqual(['unsupported_network', 'network']);
  });

  it('picks the cheapest network under a configured schedule (ethereum when cheaper than base)', () => {
    const cheapMainnet = resolveFees({ ethereum: { usdc: '0.001' } });
    expect(planSend(EVM, 'usdc', undefined, cheapMainnet)).toEqual({ rail: 'ethereum', fee: 1_000n });
    expect(planSend(EVM, 'eth', undefined, cheapMainnet).rail).toBe('base');
  });

  it('refuses a configured fee with more places than the asset or a sign', () => {
    expect(() => resolveFees({ iban: '0.001' })).toThrow(RangeError);
    expect(() => resolveFees({ base: { usdc: '-1' } })).toThrow(RangeError);
    expect(resolveFees({ aba: '0' }).aba.usd).toBe(0n);
  });
});

describe('card numbers', () => {
  it.each(['4242424242424242', '4111111111111111', '5555555555554444', '378282246310005'])('accepts the known test number %s', (number) => {
    expect(isLuhnValid(number)).toBe(true);
  });

  it.each(['4242424242424241', '4111111111111112', '1234567812345678'])('refuses %s', (number) => {
    expect(isLuhnValid(number)).toBe(false);
  });

  it('computes the check digit of 7992739871 as 3', () => {
    expect(luhnCheckDigit('7992739871')).toBe(3);
  });

  it('generates 16-digit, Luhn-valid numbers starting with 4 from any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 64, maxLength: 64 }), (seed) => {
        let offset = 0;
        const next = (n: number) => {
          const out = new Uint8Array(n);
          for (let i = 0; i < n; i++) out[i] = seed[(offset + i) % seed.length]! ^ (offset + i);
          offset += n;
          return out;
        };
        const number = cardNumberFromBytes(next);
        expect(number).toMatch(/^424242\d{10}$/);
        expect(isLuhnValid(number)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('expires three years on, the 29th of February becoming the 28th', () => {
    expect(expiryDate(Date.UTC(2026, 0, 1))).toBe('2029-01-01');
    expect(expiryDate(Date.UTC(2028, 1, 29, 23, 59))).toBe('2031-02-28');
    expect(expiryDate(Date.UTC(2026, 11, 31))).toBe('2029-12-31');
  });
});
