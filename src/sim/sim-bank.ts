import type { BankRail } from '../core/ports/payment-rails.js';

/** How long a bank transfer stays pending: 24 hours of service time (DECISIONS.md). */
export const BANK_SETTLE_MS = 24 * 60 * 60 * 1000;

/** A bank reference: `SEPA` (IBAN) or `ACH` (ABA) and 16 upper-case hex digits. */
export function bankReference(rail: BankRail, nextBytes: (n: number) => Uint8Array): string {
  return `${rail === 'iban' ? 'SEPA' : 'ACH'}${Buffer.from(nextBytes(8)).toString('hex').toUpperCase()}`;
}
