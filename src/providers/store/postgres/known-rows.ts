import type { Row } from './batch-sender.js';

/** A record as a transaction knows it: its text (undefined: none) and version. */
export interface KnownRow {
  text: string | undefined;
  version: number;
}

/**
 * The version remembered for a record a read found absent: an update checked against it never
 * matches, so a record created by another transaction after this one saw none is a conflict.
 */
export const ABSENT = -1;

/** What an `f` op answered for each id it asked for: its row, or the record known to be absent. */
export function knownRows(ids: readonly string[], rows: readonly Row[]): Map<string, KnownRow> {
  const known = new Map<string, KnownRow>();
  for (const id of ids) known.set(id, { text: undefined, version: ABSENT });
  for (const row of rows) known.set(row.id!, { text: row.record!, version: row.version! });
  return known;
}
