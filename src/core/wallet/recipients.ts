import { isAbaRoutingNumber, isEvmAddress, isSolanaAddress, normalizeIban } from './addresses.js';

/**
 * What a send's `to` names, by form (DECISIONS.md). `handle` and `email` still need a lookup:
 * they are book transfers when they name an agent of this service, else recipient_not_found.
 */
export type Recipient =
  | { kind: 'handle'; name: string; domain: string | null }
  | { kind: 'email'; local: string; domain: string }
  | { kind: 'evm'; address: string }
  | { kind: 'solana'; address: string }
  | { kind: 'iban'; iban: string }
  | { kind: 'aba'; routing: string; account: string };

/** The kinds of recipient outside the service. */
export type ExternalRecipient = Exclude<Recipient, { kind: 'handle' | 'email' }>;

const NAME = /^[a-z0-9][a-z0-9-]{1,31}$/;
const HANDLE = /^([a-z0-9][a-z0-9-]{1,31})(?:\.([a-z0-9-]+(?:\.[a-z0-9-]+)*))?$/i;
const EMAIL = /^([^\s@]+)@([a-z0-9-]+(?:\.[a-z0-9-]+)+)$/i;
const ABA = /^([0-9]{9}):([0-9]{4,17})$/;

/**
 * Reads the form of a recipient, or undefined when `to` matches none (invalid_recipient). Order
 * settles the only overlap: a lower-case agent name is a handle even if it also decodes as base58.
 */
export function parseRecipient(to: string): Recipient | undefined {
  const lower = to.toLowerCase();
  if (lower.startsWith('iban:')) {
    const iban = normalizeIban(to.slice(5));
    return iban ? { kind: 'iban', iban } : undefined;
  }
  if (lower.startsWith('aba:')) {
    const match = ABA.exec(to.slice(4));
    return match && isAbaRoutingNumber(match[1]!) ? { kind: 'aba', routing: match[1]!, account: match[2]! } : undefined;
  }
  if (to.includes('@')) {
    const match = EMAIL.exec(to);
    return match ? { kind: 'email', local: match[1]!.toLowerCase(), domain: match[2]!.toLowerCase() } : undefined;
  }
  if (lower.startsWith('0x')) return isEvmAddress(to) ? { kind: 'evm', address: to } : undefined;
  if (NAME.test(to)) return { kind: 'handle', name: to, domain: null };
  if (isSolanaAddress(to)) return { kind: 'solana', address: to };
  const handle = HANDLE.exec(to);
  if (handle) return { kind: 'handle', name: handle[1]!.toLowerCase(), domain: handle[2]?.toLowerCase() ?? null };
  return undefined;
}

/**
 * One spelling per external recipient, so failure rules match however an address was written:
 * EVM addresses lower case, IBANs in electronic form, `aba:<routing>:<account>`.
 */
export function recipientKey(recipient: ExternalRecipient): string {
  switch (recipient.kind) {
    case 'evm':
      return recipient.address.toLowerCase();
    case 'solana':
      return recipient.address;
    case 'iban':
      return `iban:${recipient.iban}`;
    case 'aba':
      return `aba:${recipient.routing}:${recipient.account}`;
  }
}

/** Whether a recipient lies outside the service. */
export function isExternal(recipient: Recipient): recipient is ExternalRecipient {
  return recipient.kind !== 'handle' && recipient.kind !== 'email';
}
