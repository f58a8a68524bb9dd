import { getCountries, getExampleNumber, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/mobile/examples';

/**
 * Territories that share a numbering plan with a larger one (Åland with Finland, Christmas and
 * Cocos Islands with Australia, ...): libphonenumber-js attributes a drawn number to the larger
 * country, so no number can be drawn for them.
 */
const SHARED_PLANS = new Set<string>(['AX', 'BL', 'CC', 'CX', 'EH', 'IM', 'MF', 'SJ', 'VA']);

/** Countries an agent's number can come from (ISO 3166-1 alpha-2), US, CA, GB and DE among them. */
export const PHONE_COUNTRIES: readonly string[] = getCountries().filter((country) => !SHARED_PLANS.has(country) && getExampleNumber(country, examples));

const SUPPORTED = new Set(PHONE_COUNTRIES);

/** Whether numbers can be drawn for `country`. */
export function isPhoneCountry(country: string): boolean {
  return SUPPORTED.has(country);
}

/** A valid E.164 number in canonical form and its country, or undefined. */
export function parseE164(text: string): { number: string; country: string | null } | undefined {
  if (!/^\+[1-9]\d{1,14}$/.test(text)) return undefined;
  const parsed = parsePhoneNumberFromString(text);
  if (!parsed || !parsed.isValid() || parsed.number !== text) return undefined;
  return { number: parsed.number, country: parsed.country ?? null };
}

/** How many candidates are drawn at most before giving up (never reached for supported countries). */
const MAX_DRAWS = 3000;

/**
 * Draws a mobile number of `country` from a digit source: the digits after a prefix of the
 * country's example mobile number are random (first only its leading digit is kept, then three
 * digits, then all but four, for plans where few prefixes are mobile), until libphonenumber-js
 * finds the number valid, of that country and mobile, and `taken` says it is free (`taken` may
 * ask the store, so the draw answers a promise; the digits drawn are the same either way).
 * @throws RangeError for an unsupported country or when no free number was found (as a rejection)
 */
export async function drawPhoneNumber(country: string, nextDigit: () => number, taken: (e164: string) => boolean | Promise<boolean>): Promise<string> {
  if (!isPhoneCountry(country)) throw new RangeError(`no numbers for country ${country}`);
  const example = getExampleNumber(country as CountryCode, examples)!;
  const national = example.nationalNumber;
  const keeps = [1, 3, Math.max(1, national.length - 4)];
  for (let draw = 0; draw < MAX_DRAWS; draw++) {
    const keep = keeps[Math.min(keeps.length - 1, Math.floor(draw / 300))]!;
    let digits = national.slice(0, keep);
    for (let i = keep; i < national.length; i++) digits += String(nextDigit());
    const candidate = `+${example.countryCallingCode}${digits}`;
    const parsed = parsePhoneNumberFromString(candidate);
    if (!parsed || !parsed.isValid() || parsed.country !== country || parsed.number !== candidate) continue;
    const type = parsed.getType();
    if (type !== 'MOBILE' && type !== 'FIXED_LINE_OR_MOBILE') continue;
    if (!(await taken(candidate))) return candidate;
  }
  throw new RangeError(`no free number found for ${country}`);
}

/** A uniform decimal digit from random bytes (rejection sampling keeps it unbiased). */
export function digitSource(bytes: (n: number) => Uint8Array): () => number {
  let pool: Uint8Array = new Uint8Array(0);
  let at = 0;
  return () => {
    for (;;) {
      if (at >= pool.length) {
        pool = bytes(16);
        at = 0;
      }
      const byte = pool[at++]!;
      if (byte < 250) return byte % 10;
    }
  };
}
