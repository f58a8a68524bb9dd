import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * RFC 8785 canonical JSON (sorted keys, no insignificant white space): the byte-stable form used
 * for state hashes, idempotency fingerprints and snapshots.
 */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON form');
  return text;
}

/** Lower-case hex SHA-256 of a string or bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Recursively freezes a JSON-like value so stored records cannot be changed by reference. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    // for...in rather than Object.values: no array per object, and most children are not objects
    // (a JSON-like value has no inherited enumerable properties).
    for (const key in value) {
      const child = value[key];
      if (child !== null && typeof child === 'object') deepFreeze(child);
    }
  }
  return value;
}
