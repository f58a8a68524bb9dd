/** The Luhn check digit that completes `digits` (a string of decimal digits). */
export function luhnCheckDigit(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    // Doubling starts with the rightmost payload digit, which sits next to the check digit.
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return (10 - (sum % 10)) % 10;
}

/** Whether a card number passes the Luhn check. */
export function isLuhnValid(number: string): boolean {
  return /^[0-9]{2,19}$/.test(number) && luhnCheckDigit(number.slice(0, -1)) === Number(number.slice(-1));
}

/** The test range of simulated cards (DECISIONS.md: 4242 42...), as card networks' test numbers. */
export const CARD_PREFIX = '424242';

/**
 * A Luhn-valid 16-digit card number and a 3-digit CVV from random bytes: the prefix, 9 digits
 * drawn by rejection sampling (no modulo bias), the check digit, then the CVV's digits from the
 * same draws (one draw of 16 bytes nearly always gives all 12).
 */
export function cardSecretsFromBytes(nextBytes: (n: number) => Uint8Array): { number: string; cvv: string } {
  const digits: string[] = [];
  const wanted = 15 - CARD_PREFIX.length + 3;
  while (digits.length < wanted) {
    for (const byte of nextBytes(16)) if (byte < 250 && digits.length < wanted) digits.push(String(byte % 10));
  }
  const body = CARD_PREFIX + digits.slice(0, 15 - CARD_PREFIX.length).join('');
  return { number: body + String(luhnCheckDigit(body)), cvv: digits.slice(15 - CARD_PREFIX.length).join('') };
}

/** A Luhn-valid 16-digit card number of the test range, from random bytes (see {@link cardSecretsFromBytes}). */
export function cardNumberFromBytes(nextBytes: (n: number) => Uint8Array): string {
  return cardSecretsFromBytes(nextBytes).number;
}

/** `expires_at` of a card made at `epochMs`: the same day three years on, clamped to the month's end (Feb 29 → Feb 28). */
export function expiryDate(epochMs: number): string {
  const created = new Date(epochMs);
  const year = created.getUTCFullYear() + 3;
  const month = created.getUTCMonth();
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(created.getUTCDate(), lastDay);
  return `${String(year).padStart(4, '0')}-${String(month + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}
