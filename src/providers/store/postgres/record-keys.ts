import { createHash } from 'node:crypto';

/** The key of a record in a transaction's maps. */
export function keyOf(collection: string, id: string): string {
  return `${collection}\u001f${id}`;
}

/** A stable 64-bit advisory-lock key of a record (signed, as PostgreSQL's bigint). */
export function lockKey(collection: string, id: string): bigint {
  return createHash('sha256').update(keyOf(collection, id)).digest().readBigInt64BE(0);
}
