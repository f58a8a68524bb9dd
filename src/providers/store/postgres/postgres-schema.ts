import type { Sql } from 'postgres';
import { BATCH_FUNCTION } from './batch-function.js';

/** The schema version this code writes and reads; kept in the database's meta table. */
export const SCHEMA_VERSION = 4;

/** Meta keys (the runtime's state and the schema's version). */
export const META = {
  schemaVersion: 'schema_version',
  serviceDomain: 'service_domain',
  clockMs: 'clock_ms',
  random: 'random',
  /** How many processes have started on this world: each forks its own random stream from it. */
  epoch: 'epoch',
} as const;

/** The advisory lock key that serialises migrations of one database (two processes starting at once). */
const MIGRATION_LOCK = 0x61677376; // "agsv"

/**
 * Version 1: every record is a row (its JSON text: exact, key order kept, and a `\u0000` in a
 * string, which JSONB refuses, round-trips); positions come from one sequence per collection;
 * `version` counts updates, for first-updater-wins checks.
 */
const V1 = `
CREATE TABLE IF NOT EXISTS agent_services_meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE IF NOT EXISTS agent_services_records (
  collection text NOT NULL,
  id text NOT NULL,
  part text NOT NULL,
  position bigint NOT NULL,
  version integer NOT NULL DEFAULT 0,
  record text NOT NULL,
  PRIMARY KEY (collection, id)
);
CREATE INDEX IF NOT EXISTS agent_services_records_page ON agent_services_records (collection, part, position);
CREATE TABLE IF NOT EXISTS agent_services_collections (name text PRIMARY KEY, sequence text NOT NULL);
CREATE TABLE IF NOT EXISTS agent_services_blobs (key text NOT NULL, chunk integer NOT NULL, bytes bytea NOT NULL, PRIMARY KEY (key, chunk));
`;

/**
 * Version 3 drops version 1's index of `(collection, position)`: only reads of a whole collection
 * used it (start-up work, exports), which sort instead, while every insert paid an entry in it
 * (12% of a keyed send's WAL).
 */
const V3 = 'DROP INDEX IF EXISTS agent_services_records_order;';

/**
 * Versions 2 to 4 install the batch function (batch-function.ts): version 2 its first text,
 * version 3 with its claim ops (`st`, `su`), version 4 with `f` probing the primary key once per
 * id (it had read every record of the collection through the page index, and filtered) and
 * numbered inserts that show their numbers as locks (settled-positions.ts). Each step
 * installs the function's latest text. Version 4 also compares the records' keys bytewise
 * (`COLLATE "C"`): under the database's default collation (en_US.UTF-8, C.UTF-8) every
 * comparison in the two indexes went through strcoll, and nothing here orders by key text.
 */
const V4 = `${BATCH_FUNCTION}
ALTER TABLE agent_services_records
  ALTER COLUMN collection TYPE text COLLATE "C",
  ALTER COLUMN id TYPE text COLLATE "C",
  ALTER COLUMN part TYPE text COLLATE "C";`;

/** A database written by a newer version of agent-services. */
export class SchemaTooNewError extends Error {
  constructor(
    readonly found: number,
    readonly supported: number,
  ) {
    super(`the database has schema version ${found}, newer than the ${supported} this agent-services version knows; upgrade agent-services (or use another database)`);
    this.name = 'SchemaTooNewError';
  }
}

/**
 * Creates the schema or brings it to {@link SCHEMA_VERSION}, under an advisory lock so that two
 * processes starting at once on an empty database both come up. Answers the version it found
 * (0 for an empty database).
 * @throws SchemaTooNewError when the database is of a newer version
 */
export async function migrate(sql: Sql): Promise<number> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`SET LOCAL client_min_messages = warning`;
    const [exists] = await tx`SELECT to_regclass('agent_services_meta') IS NOT NULL AS present`;
    let found = 0;
    if (exists?.present) {
      const [row] = await tx`SELECT value FROM agent_services_meta WHERE key = ${META.schemaVersion}`;
      found = row ? Number(row.value) : 0;
    }
    if (found > SCHEMA_VERSION) throw new SchemaTooNewError(found, SCHEMA_VERSION);
    if (found < 1) await tx.unsafe(V1);
    if (found < 3) await tx.unsafe(V3);
    if (found < 4) await tx.unsafe(V4);
    await tx`INSERT INTO agent_services_meta (key, value) VALUES (${META.schemaVersion}, ${String(SCHEMA_VERSION)})
      ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
    return found;
  });
}

/** The schema version a database holds (0 when it has none), without changing anything. */
export async function schemaVersion(sql: Sql): Promise<number> {
  const [exists] = await sql`SELECT to_regclass('agent_services_meta') IS NOT NULL AS present`;
  if (!exists?.present) return 0;
  const [row] = await sql`SELECT value FROM agent_services_meta WHERE key = ${META.schemaVersion}`;
  return row ? Number(row.value) : 0;
}

/** The name of a collection's position sequence: readable where the name allows it, else hashed. */
export function sequenceName(collection: string, hash: (text: string) => string): string {
  return /^[a-z0-9_]{1,40}$/.test(collection) ? `agent_services_pos_${collection}` : `agent_services_pos_h${hash(collection).slice(0, 24)}`;
}
