import { createHash } from 'node:crypto';

/** The key of a record in a transaction's maps. */
export function keyOf(collection: string, id: string): string {
  return `${collection}\u001f${id}`;
}

/** Lock keys computed lately: money rows and order locks are locked again and again (a SHA-256 each is a few µs). */
const recent = new Map<string, bigint>();
/** Keys {@link recent} keeps at most: the process's memory stays flat as the world grows. */
const RECENT_MAX = 4096;

/** A stable 64-bit advisory-lock key of a record (signed, as PostgreSQL's bigint). */
export function lockKey(collection: string, id: string): bigint {
  const key = keyOf(collection, id);
  let lock = recent.get(key);
  if (lock === undefined) {
    lock = createHash('sha256').update(key).digest().readBigInt64BE(0);
    if (recent.size >= RECENT_MAX) recent.delete(recent.keys().next().value as string);
    recent.set(key, lock);
  }
  return lock;
}
