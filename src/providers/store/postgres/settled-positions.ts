import { setTimeout as delay } from 'node:timers/promises';
import type { Sql } from 'postgres';
import { translate } from './postgres-errors.js';
import { lockKey } from './record-keys.js';
import type { Sequences } from './sequences.js';

/**
 * The record whose advisory lock a writer of a collection's numbered records holds, shared, from
 * before it draws its first number to its commit (see {@link settledPosition}).
 */
export const ORDER = '$order';

/**
 * How long a reader waits before it looks again at a writer seen between its order lock and its
 * first number (ms): a few statements of one batch, so first a millisecond, then longer (up to
 * {@link POLL_MAX_MS}) for a writer stopped there (its batch failed, its ROLLBACK not sent yet).
 */
const POLL_MS = 1;
const POLL_MAX_MS = 50;

/** 2^32: numbers are shown in pg_locks by their low 32 bits. */
const WORD = 2n ** 32n;

/**
 * The key space (an int4) of the advisory locks by which the writers of `collection` show the
 * numbers they hold: `pg_advisory_xact_lock_shared(space, low 32 bits of the number)`, taken by
 * the batch function's `nb` op right after drawing the number, held to the commit.
 */
export function numberSpace(collection: string): number {
  return Number(BigInt.asIntN(32, lockKey(collection, '$numbers')));
}

/**
 * The largest position of `collection` at or below which every numbered record is committed or
 * gone for good: reading up to it, a reader never later meets a smaller number. Writers draw
 * numbers without waiting for each other: each takes the collection's order lock shared before its
 * first number, and a lock on each number right after drawing it, and keeps them to its commit.
 * Read after the sequence's last value L, the locks tell every writer under way and the smallest
 * number each holds: the answer is L, or the smallest held number less one. A writer seen between
 * its order lock and its first number (a few statements of one batch) is looked at again.
 */
export function settledPosition(sql: Sql, sequences: Sequences, collection: string): Promise<number> {
  // A database away answers 503 unavailable, as every read of the view does.
  return settle(sql, sequences, collection).catch((error: unknown) => {
    throw translate(error);
  });
}

async function settle(sql: Sql, sequences: Sequences, collection: string): Promise<number> {
  const sequence = await sequences.known(collection);
  if (sequence === undefined) return 0;
  const last = BigInt(await sequences.lastValue(sequence));
  // pg_locks shows a bigint advisory key as its high and low 32 bits (classid, objid) with objsubid
  // 1, and a pair of int4 keys as (classid, objid) with objsubid 2, each as an unsigned oid.
  const order = lockKey(collection, ORDER);
  const orderHigh = String(BigInt.asUintN(32, order >> 32n));
  const orderLow = String(BigInt.asUintN(32, order));
  const space = String(BigInt.asUintN(32, BigInt(numberSpace(collection))));
  for (let wait = POLL_MS; ; wait = Math.min(POLL_MAX_MS, wait * 2)) {
    const rows = await sql`SELECT virtualtransaction, objid::text AS low, objsubid FROM pg_locks
      WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND ((classid = ${orderHigh}::oid AND objid = ${orderLow}::oid AND objsubid = 1) OR (classid = ${space}::oid AND objsubid = 2))`;
    const writers = new Set<string>();
    const smallest = new Map<string, bigint>();
    for (const row of rows) {
      const writer = row.virtualtransaction as string;
      if (Number(row.objsubid) === 1) {
        writers.add(writer);
        continue;
      }
      // The number nearest `last` whose low 32 bits these are (one drawn since may be past it).
      const low = BigInt(row.low as string);
      const below = last - ((((last - low) % WORD) + WORD) % WORD);
      const number = last - below < WORD / 2n ? below : below + WORD;
      const known = smallest.get(writer);
      if (known === undefined || number < known) smallest.set(writer, number);
    }
    if ([...writers].some((writer) => !smallest.has(writer))) {
      await delay(wait);
      continue;
    }
    let settled = last;
    for (const number of smallest.values()) if (number - 1n < settled) settled = number - 1n;
    return Number(settled);
  }
}
