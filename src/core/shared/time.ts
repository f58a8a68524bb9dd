/** Milliseconds since the Unix epoch to the service's timestamp form: ISO 8601 with ms and `Z`. */
export function toIso(epochMs: number): string {
  // Many records of one request carry the same instant (a send writes two ledger records and
  // their events): formatting a Date is the costly part, so the last one is kept.
  if (epochMs !== lastIso.ms) {
    lastIso.text = new Date(epochMs).toISOString();
    lastIso.ms = epochMs;
  }
  return lastIso.text;
}

const lastIso = { ms: Number.NaN, text: '' };

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Parses an ISO 8601 date-time with an explicit zone; undefined when it is not one. */
export function parseIso(text: string): number | undefined {
  if (!ISO_WITH_ZONE.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * The last instant the service's timestamp form can write (`toISOString` turns year 10000 into
 * `+010000-...`), so the simulated clock never passes it (DECISIONS.md).
 */
export const LATEST_TIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** {@link LATEST_TIME_MS} in the timestamp form. */
export const LATEST_TIME_ISO = '9999-12-31T23:59:59.999Z';

/** One day in milliseconds. */
export const DAY_MS = 86_400_000;
