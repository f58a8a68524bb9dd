import type { ServiceIdentifier } from '../shared/di.js';

/** A card's billing address. */
export interface BillingAddress {
  name: string;
  line1: string;
  city: string;
  state: string;
  postal_code: string;
  country: string;
}

/** What a card's holder sees once: the full number, the CVV, the expiry and the billing address. */
export interface CardSecret {
  number: string;
  cvv: string;
  /** `YYYY-MM-DD`, as the card's `expires_at`. */
  expires_at: string;
  billing_address: BillingAddress;
}

/**
 * Keeps card secrets encrypted at rest (DECISIONS.md: AES-256-GCM, the key from configuration,
 * derived from the seed in simulation). Sealing is deterministic for a given key and `context`
 * (the card's id, unique per key), so a simulated world stays the same byte for byte; the
 * context is also authenticated, so a sealed secret moved to another card does not open.
 */
export interface CardVault {
  /** The secret encrypted for `context`, as text fit for a stored record. */
  seal(secret: CardSecret, context: string): string;
  /** The secret back. @throws Error when the text was not sealed for `context` with this vault's key */
  open(sealed: string, context: string): CardSecret;
}

/** Injection token of {@link CardVault}. */
export const CardVault = Symbol.for('agent-services/CardVault') as ServiceIdentifier<CardVault>;
