/**
 * The on-disk format of {@link SqliteStore} (documented for users in docs/store.md). Every record
 * of every collection is one row of `records`, its value as JSON text, so the sqlite3 shell and
 * its JSON functions read a world directly.
 */

/** `PRAGMA application_id` of an agent-services database ("AGSV"). */
export const APPLICATION_ID = 0x41475356;

/** `PRAGMA user_version`: the schema this code writes; a newer one is refused. */
export const SCHEMA_VERSION = 1;

/** Tables, created once in an empty database (with {@link INDEXES}). */
export const SCHEMA = `
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE collections (
  name          TEXT PRIMARY KEY,
  next_position INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE records (
  collection TEXT NOT NULL,
  id         TEXT NOT NULL,
  partition  TEXT NOT NULL,
  position   INTEGER NOT NULL,
  record     TEXT NOT NULL
);
`;

/** The indexes of `records`: lookups by id, and keyset pages of one partition in either order. */
export const INDEXES = `
CREATE UNIQUE INDEX records_by_id ON records (collection, id);
CREATE UNIQUE INDEX records_by_page ON records (collection, partition, position);
`;

/** Keys of the `meta` table that hold the runtime state. */
export const META = { serviceDomain: 'service_domain', clockMs: 'clock_ms', random: 'random' } as const;
