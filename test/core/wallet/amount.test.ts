import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ApiError } from '../../../src/core/shared/api-error.js';
import { formatAmount, formatMinor, parseAmount, storedMinor, toMinorUnits } from '../../../src/core/wallet/amount.js';

describe('wallet amounts', () => {
  describe('parseAmount', () => {
    it.each([
      ['1', 'usd', 100n],
      ['12.5', 'usd', 1250n],
      ['12.50', 'usd', 1250n],
      ['0.01', 'usd', 1n],
      ['0.000001', 'usdc', 1n],
      ['0.000000000000000001', 'eth', 1n],
      ['1.000000001', 'sol', 1_000_000_001n],
      ['999999999999999999999999999999', 'usd', 99999999999999999999999999999900n],
    ] as const)('reads %s %s as %s minor units', (text, asset, minor) => {
      expect(parseAmount(text, asset, 'amount')).toBe(minor);
    });

    it.each([
      ['1e3', 'an exponent'],
      ['-1', 'a sign'],
      ['+1', 'a plus sign'],
      ['0', 'zero'],
      ['0.00', 'zero with places'],
      [' 1', 'leading white space'],
      ['1 ', 'trailing white space'],
      ['1.', 'a trailing point'],
      ['.5', 'a leading point'],
      ['01', 'a leading zero'],
      ['1,000', 'grouping'],
      ['', 'nothing'],
      ['abc', 'letters'],
      ['0x10', 'hex'],
      ['Infinity', 'Infinity'],
      ['NaN', 'NaN'],
      ['1.001', 'three places for usd'],
      ['1.500', 'trailing zeros beyond the precision'],
      ['1000000000000000000000000000000', 'a value of 10^30'],
      ['１', 'a full-width digit'],
    ])('refuses "%s" (%s) with 400 invalid_amount on the given param', (text) => {
      let caught: unknown;
      try {
        parseAmount(text, 'usd', 'amount');
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ApiError);
      expect((caught as ApiError).code).toBe('invalid_amount');
      expect((caught as ApiError).param).toBe('amount');
    });

    it('accepts 18 places for eth but not 19', () => {
      expect(parseAmount('1.123456789012345678', 'eth', 'amount')).toBe(1_123456789012345678n);
      expect(() => parseAmount('1.1234567890123456789', 'eth', 'amount')).toThrow(/18 decimal places/);
    });

    it('adds "0.1" and "0.2" to exactly "0.3" (no floating point)', () => {
      const sum = parseAmount('0.1', 'eth', 'amount') + parseAmount('0.2', 'eth', 'amount');
      expect(formatAmount(sum, 'eth')).toBe('0.300000000000000000');
      expect(sum).toBe(parseAmount('0.3', 'eth', 'amount'));
    });
  });

  describe('toMinorUnits', () => {
    it('answers zero as 0n (callers decide whether zero is allowed)', () => {
      expect(toMinorUnits('0', 2)).toBe(0n);
      expect(toMinorUnits('0.00', 2)).toBe(0n);
    });
  });

  describe('formatMinor', () => {
    it.each([
      [0n, 2, '0.00'],
      [5n, 2, '0.05'],
      [1250n, 2, '12.50'],
      [1n, 18, '0.000000000000000001'],
      [-1250n, 2, '-12.50'],
      [7n, 0, '7'],
    ])('formats %s with %s places as %s', (minor, places, text) => {
      expect(formatMinor(minor, places)).toBe(text);
    });

    it('round-trips every amount through its stored form exactly', () => {
      fc.assert(
        fc.property(fc.bigInt({ min: 0n, max: 10n ** 40n }), fc.constantFrom('usd', 'usdc', 'eth', 'sol') as fc.Arbitrary<'usd' | 'usdc' | 'eth' | 'sol'>, (minor, asset) => {
          const text = formatAmount(minor, asset);
          expect(storedMinor(text)).toBe(minor);
          if (minor > 0n && minor < 10n ** 30n) expect(parseAmount(text, asset, 'amount')).toBe(minor);
        }),
        { numRuns: 200 },
      );
    });
  });
});
