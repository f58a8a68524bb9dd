import { hash } from 'node:crypto';

/** The key of a record in a transaction's maps. */
export function keyOf(collection: string, id: string): string {
  return `${collection}\u001f${id}`;
}

/** Lock keys computed lately: money rows and order locks are locked again and again (a SHA-256 each is a few µs). */
const recent = new Map<string, bigint>();
/** Keys {@link recent} keeps at most: the process's memory stays flat as the world grows. */
const RECENT_MAX = 4096;

/** A stable 64-bit advisory-lock key of a record (signed, as PostgreSQL's bigint): kept in {@link recent}. */
export function lockKey(collection: string, id: string): bigint {
  const key = keyOf(collection, id);
  let lock = recent.get(key);
  if (lock === undefined) {
    lock = keyHash(key);
    if (recent.size >= RECENT_MAX) recent.delete(recent.keys().next().value as string);
    recent.set(key, lock);
  }
  return lock;
}

/**
 * {@link lockKey} for a name locked once (an Idempotency-Key's claim), not kept: such names would
 * push the money rows' keys out of {@link recent}.
 */
export function onceLockKey(collection: string, id: string): bigint {
  return keyHash(keyOf(collection, id));
}

/** The first 8 bytes of the key's SHA-256, as a signed 64-bit integer (the one-shot hash: a third of a Hash object's cost). */
function keyHash(key: string): bigint {
  return BigInt.asIntN(64, BigInt(`0x${hash('sha256', key).slice(0, 16)}`));
}
