import { ApiError } from '../shared/api-error.js';
import { DECIMALS, type Asset } from './assets.js';

/**
 * The amount grammar: digits, then optionally a point and at least one digit. No sign, exponent,
 * white space, grouping, leading point (".5") or trailing point ("1."), and no leading zeros
 * ("01"): one spelling per value, as Stripe-like strictness expects.
 */
const AMOUNT = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

/** Largest number of digits before the point: amounts stay below 10^30 of any asset. */
export const MAX_INTEGER_DIGITS = 30;

/** Why an amount string was refused, as a readable sentence. */
export type AmountProblem = string;

/**
 * Converts a decimal string to integer minor units of an asset with `decimals` places, or answers
 * why it cannot (bad grammar, too many places, too large). Zero is returned as 0n; callers decide
 * whether zero is allowed.
 */
export function toMinorUnits(text: string, decimals: number): bigint | AmountProblem {
  const match = AMOUNT.exec(text);
  if (!match) return 'must be a decimal string such as "12.50" (digits, optional point and digits; no sign, exponent or spaces)';
  const whole = match[1]!;
  const fraction = match[2] ?? '';
  if (whole.length > MAX_INTEGER_DIGITS) return `must be below 10^${MAX_INTEGER_DIGITS}`;
  if (fraction.length > decimals) return `has more than ${decimals} decimal places`;
  return BigInt(whole + fraction.padEnd(decimals, '0'));
}

/**
 * Parses a positive amount of `asset` (DECISIONS.md: invalid_amount when it is not a positive
 * decimal string or has more places than the asset).
 * @throws ApiError 400 invalid_amount with `param`
 */
export function parseAmount(text: string, asset: Asset, param: string): bigint {
  const minor = toMinorUnits(text, DECIMALS[asset]);
  if (typeof minor === 'string') throw new ApiError('invalid_amount', `${param}: ${minor} (${asset} has ${DECIMALS[asset]} decimal places)`, param);
  if (minor <= 0n) throw new ApiError('invalid_amount', `${param}: must be greater than zero`, param);
  return minor;
}

/** Formats minor units with exactly `decimals` places: (1250n, 2) → "12.50"; negatives keep their sign. */
export function formatMinor(minor: bigint, decimals: number): string {
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(decimals + 1, '0');
  const text = decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
  return negative ? `-${text}` : text;
}

/** Formats minor units of an asset at its full precision. */
export function formatAmount(minor: bigint, asset: Asset): string {
  return formatMinor(minor, DECIMALS[asset]);
}

/** Reads a stored amount (always written by {@link formatAmount}) back to minor units. */
export function storedMinor(text: string): bigint {
  return BigInt(text.replace('.', ''));
}
