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

/** One day in milliseconds. */
export const DAY_MS = 86_400_000;
