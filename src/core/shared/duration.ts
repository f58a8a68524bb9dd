const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * Parses a duration such as `30d`, `12h`, `90m`, `3600s`, `500ms` or `1w` (one number, one unit)
 * into milliseconds.
 * @throws RangeError naming what was expected and what came
 */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/.exec(text.trim());
  const ms = match ? Number(match[1]) * UNIT_MS[match[2]!]! : NaN;
  if (!match || !Number.isFinite(ms) || ms <= 0) {
    throw new RangeError(`expected a duration such as 30d, 12h, 90m or 3600s, got "${text}"`);
  }
  return Math.round(ms);
}
