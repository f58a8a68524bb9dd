import type { Sql } from 'postgres';
import type { StoreSnapshot } from '../../../core/ports/store.js';
import type { Sequences } from './sequences.js';

/** Rows one INSERT of an import carries (arrays through unnest: one statement, any row count). */
const IMPORT_BATCH = 2000;

/** The whole world as a snapshot: every collection's rows in position order and its next position. */
export async function exportWorld(sql: Sql, sequences: Sequences): Promise<StoreSnapshot> {
  const next = await sequences.nextPositions();
  const rows = await sql`SELECT collection, id, part, position, record FROM agent_services_records ORDER BY collection, position`;
  const collections: StoreSnapshot['collections'] = {};
  for (const name of [...next.keys()].sort()) collections[name] = { nextPosition: next.get(name)!, rows: [] };
  for (const row of rows) {
    const name = row.collection as string;
    collections[name] ??= { nextPosition: Number(row.position) + 1, rows: [] };
    collections[name].rows.push([row.id as string, row.part as string, Number(row.position), JSON.parse(row.record as string)]);
  }
  // Collections whose records were all removed keep their next position, like the other stores.
  return { collections: Object.fromEntries(Object.entries(collections).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) };
}

/**
 * Replaces every record with the snapshot's in one transaction (all or nothing) and sets each
 * collection's next position.
 * @throws Error for a position not below its collection's next position, or a duplicate id
 */
export async function importWorld(sql: Sql, sequences: Sequences, snapshot: StoreSnapshot): Promise<void> {
  for (const [name, data] of Object.entries(snapshot.collections)) {
    for (const [id, , position] of data.rows) {
      if (!(position < data.nextPosition)) throw new Error(`position ${position} of ${name}/${id} is not below nextPosition`);
    }
    await sequences.ensure(name);
  }
  await sql.begin(async (tx) => {
    await tx`DELETE FROM agent_services_records`;
    const known = await tx`SELECT name FROM agent_services_collections`;
    for (const row of known) if (!(row.name in snapshot.collections)) await sequences.setNext(row.name as string, 1, tx as unknown as Sql);
    for (const [name, data] of Object.entries(snapshot.collections)) {
      for (let at = 0; at < data.rows.length; at += IMPORT_BATCH) {
        const batch = data.rows.slice(at, at + IMPORT_BATCH);
        await tx`INSERT INTO agent_services_records (collection, id, part, position, record)
          SELECT ${name}, * FROM unnest(${batch.map((row) => row[0])}::text[], ${batch.map((row) => row[1])}::text[],
            ${batch.map((row) => String(row[2]))}::bigint[], ${batch.map((row) => JSON.stringify(row[3]) ?? 'null')}::text[])`;
      }
      await sequences.setNext(name, data.nextPosition, tx as unknown as Sql);
    }
  });
}
