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

const hasOwn = Object.prototype.hasOwnProperty;

/** What {@link copyPlain} answers for a value it leaves to the text round trip. */
const NOT_PLAIN: unique symbol = Symbol('not plain');
/** Nesting the direct copy follows; deeper values (and cycles) take the text round trip. */
const COPY_DEPTH = 64;

/**
 * Exactly what `JSON.parse(JSON.stringify(value))` answers (and throws), built without the text
 * in between for the usual values: plain objects, arrays, strings, numbers, booleans and null.
 * Anything else (a `toJSON`, a class instance, a `__proto__` key, a bigint, a cycle, deep
 * nesting) makes the whole value take the text round trip. Every in-process call copies its
 * input and its answer this way, and the text costs more than the copy.
 */
export function jsonRoundTrip<T>(value: T): T {
  const copied = copyPlain(value, 0);
  return (copied === NOT_PLAIN ? JSON.parse(JSON.stringify(value) as string) : copied) as T;
}

function copyPlain(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      // JSON writes -0 as 0 and what is not finite as null.
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : null;
    case 'object':
      break;
    default:
      return NOT_PLAIN;
  }
  if (value === null) return null;
  if (depth === COPY_DEPTH) return NOT_PLAIN;
  if (Array.isArray(value)) {
    // An array's own toJSON (or Array.prototype's, set by someone) decides what JSON writes.
    if (Object.getPrototypeOf(value) !== Array.prototype || typeof (value as { toJSON?: unknown }).toJSON === 'function') return NOT_PLAIN;
    const out: unknown[] = new Array(value.length);
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      // An element JSON cannot write becomes null.
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') out[index] = null;
      else if ((out[index] = copyPlain(item, depth + 1)) === NOT_PLAIN) return NOT_PLAIN;
    }
    return out;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if ((prototype !== Object.prototype && prototype !== null) || typeof (value as { toJSON?: unknown }).toJSON === 'function') return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  // for...in rather than Object.keys: no array of keys per object (an in-process call copies
  // several); it yields the own keys in the same order, and inherited ones, which JSON leaves out.
  for (const key in value) {
    if (!hasOwn.call(value, key)) continue;
    const item: unknown = (value as Record<string, unknown>)[key];
    // A member JSON cannot write is left out.
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    if (key === '__proto__') return NOT_PLAIN;
    const copied = copyPlain(item, depth + 1);
    if (copied === NOT_PLAIN) return NOT_PLAIN;
    out[key] = copied;
  }
  return out;
}
