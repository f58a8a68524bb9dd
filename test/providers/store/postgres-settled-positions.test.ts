// The settled position of a collection's numbered records on PostgreSQL: writers draw numbers
// without waiting for each other and show them as locks; a reader reads up to the largest number
// below which nothing is still held.
import postgres from 'postgres';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Store } from '../../../src/core/ports/store.js';
import { ApiError } from '../../../src/core/shared/api-error.js';
import { PostgresStore } from '../../../src/providers/store/postgres/postgres-store.js';
import { lockKey } from '../../../src/providers/store/postgres/record-keys.js';
import { numberSpace, ORDER } from '../../../src/providers/store/postgres/settled-positions.js';
import { closeAfter } from '../../support/close-after.js';
import { freshDatabase, postgresSkipReason } from '../../support/postgres.js';

const skip = postgresSkipReason();
if (skip) console.log(`postgres-settled-positions: skipped, ${skip}`);

describe.skipIf(skip !== null)('PostgreSQL settled positions', () => {
  const keep = closeAfter<Store>();
  const raws: postgres.Sql[] = [];
  afterEach(async () => {
    await Promise.all(raws.splice(0).map((raw) => raw.end({ timeout: 1 })));
  });

  /** A writer on a connection of its own, in a transaction, stepping through the `nb` protocol. */
  async function writer(url: string) {
    const raw = postgres(url, { onnotice: () => {}, max: 1 });
    raws.push(raw);
    const conn = await raw.reserve();
    await conn`BEGIN`;
    return {
      order: () => conn`SELECT pg_advisory_xact_lock_shared(${String(lockKey('events', ORDER))}::bigint)`,
      draw: async () => Number((await conn`SELECT nextval('agent_services_pos_events') AS n`)[0]!.n),
      show: (seq: number) => conn`SELECT pg_advisory_xact_lock_shared(${numberSpace('events')}::integer, ${seq}::integer)`,
      end: async () => {
        await conn`ROLLBACK`;
        conn.release();
      },
    };
  }

  /** A store on a fresh database with one event numbered (which makes the events' sequence). */
  async function storeWithAnEvent(): Promise<{ url: string; store: PostgresStore }> {
    const url = await freshDatabase();
    const store = keep(await PostgresStore.open(url, { maxConnections: 3 }));
    await store.transaction(async (tx) => {
      tx.beforeCommit!(async (last) => last.insertNumbered!('events', 'seq', { seq: 0 }));
    });
    return { url, store };
  }

  it('answers below the smallest number held, waits for a writer between its order lock and its number, and never goes back', async () => {
    const { url, store } = await storeWithAnEvent();
    const settled = () => store.shared!.settledPosition('events');
    expect(await settled()).toBe(1);
    const first = await writer(url);
    await first.order();
    const held = await first.draw();
    // Its number is drawn but not shown yet: the reader cannot tell it, and waits.
    let answered: number | undefined;
    const asked = settled().then((position) => (answered = position));
    const second = await writer(url);
    await second.order();
    const later = await second.draw();
    await second.show(later);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered).toBeUndefined();
    await first.show(held);
    expect(await asked).toBe(held - 1);
    // The later number ends first: still below the held one.
    await second.end();
    expect(await settled()).toBe(held - 1);
    await first.end();
    expect(await settled()).toBe(later);
  });

  it('answers 503 unavailable, as the view does, when the database cannot be reached', async () => {
    const { store } = await storeWithAnEvent();
    const sequences = (store as unknown as { sequences: { lastValue: () => Promise<number> } }).sequences;
    vi.spyOn(sequences, 'lastValue').mockRejectedValueOnce(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const refused = await store.shared!.settledPosition('events').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).code).toBe('unavailable');
  });
});
