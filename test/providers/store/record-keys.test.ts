// Advisory-lock keys are shared by every process of a world, whatever its version: a key must be
// the first 8 bytes of SHA-256 of `collection \u001f id`, read as a signed 64-bit integer.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { lockKey, onceLockKey } from '../../../src/providers/store/postgres/record-keys.js';

/** The key as the first PostgreSQL store computed it. */
function reference(collection: string, id: string): bigint {
  return createHash('sha256').update(`${collection}\u001f${id}`).digest().readBigInt64BE(0);
}

describe('advisory-lock keys', () => {
  it('are the first 8 bytes of SHA-256 of the record key, signed, whether kept or not', () => {
    const samples: Array<[string, string]> = [
      ['wallets', 'agt_qa2uHxx96uzoaUBIrUJKFB3o'],
      ['claims', 'idempotency:agt_qa2uHxx96uzoaUBIrUJKFB3o:k-1'],
      ['events', '\u0000order'],
      ['', ''],
      ['names', 'ünïcødé ✓'],
    ];
    for (const [collection, id] of samples) {
      expect(lockKey(collection, id)).toBe(reference(collection, id));
      expect(onceLockKey(collection, id)).toBe(reference(collection, id));
    }
    // Both signs occur, within PostgreSQL's bigint.
    const keys = Array.from({ length: 64 }, (_, n) => onceLockKey('claims', `k-${n}`));
    expect(keys.some((key) => key < 0n) && keys.some((key) => key > 0n)).toBe(true);
    for (const key of keys) expect(key >= -(2n ** 63n) && key < 2n ** 63n).toBe(true);
  });
});
