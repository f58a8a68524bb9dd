import type { WalletAsset } from '../../core/wallet/wallet.schema.js';
import { check } from '../assert.js';

/** Outside recipients with valid checksums (EIP-55, base58 of 32 bytes, ISO 13616, ABA). */
export const EXTERNAL = {
  evm: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  solana: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
  iban: 'iban:DE89370400440532013000',
  aba: 'aba:021000021:123456789',
} as const;

/** Decimal places per asset (DECISIONS.md). */
export const PLACES: Record<WalletAsset, number> = { usd: 2, eur: 2, usdc: 6, eth: 18, sol: 9 };

/** A decimal string of the asset as minor units. */
export function toMinor(text: string, asset: WalletAsset): bigint {
  check(/^\d+(\.\d+)?$/.test(text), `amount ${JSON.stringify(text)} of ${asset} is not a non-negative decimal string`);
  const [whole, fraction = ''] = text.split('.');
  check(fraction.length <= PLACES[asset], `amount ${text} has more places than ${asset} has`);
  return BigInt(whole! + fraction.padEnd(PLACES[asset], '0'));
}

/** Minor units as the shortest decimal string ("12.5", "3"). */
export function fromMinor(minor: bigint, asset: WalletAsset): string {
  const places = PLACES[asset];
  const digits = minor.toString().padStart(places + 1, '0');
  const whole = digits.slice(0, -places);
  const fraction = digits.slice(-places).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/** A page of a keyset-paginated list. */
export interface Page<T> {
  items: T[];
  next: string | null;
}

/**
 * Walks every page of a list; `between` runs after each page (to add records while the walk goes
 * on). @throws CheckFailure past `maxPages` (a cursor that never ends)
 */
export async function walkPages<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>, between?: () => Promise<void>, maxPages = 200): Promise<T[]> {
  const seen: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const { items, next } = await fetchPage(cursor);
    seen.push(...items);
    if (next === null) return seen;
    check(typeof next === 'string' && next.length > 0, `next_cursor must be a non-empty string or null, got ${JSON.stringify(next)}`);
    cursor = next;
    if (between) await between();
  }
  throw new Error(`the list did not end after ${maxPages} pages`);
}

/**
 * Checks a page walk that began when `before` were the records: each of them seen exactly once,
 * no record seen twice. @throws CheckFailure naming the record
 */
export function checkWalk(what: string, before: readonly string[], seen: readonly string[]): void {
  const counts = new Map<string, number>();
  for (const id of seen) counts.set(id, (counts.get(id) ?? 0) + 1);
  for (const [id, count] of counts) check(count === 1, `${what}: record ${id} appeared ${count} times across pages`);
  for (const id of before) check(counts.has(id), `${what}: record ${id}, present when the walk began, was never seen`);
}

/** An Idempotency-Key unique to this run. */
export function freshKey(label: string): string {
  return `cf-${label}-${Math.random().toString(36).slice(2, 12)}`;
}
