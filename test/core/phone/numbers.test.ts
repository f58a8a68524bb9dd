import { isValidPhoneNumber, parsePhoneNumberFromString } from 'libphonenumber-js';
import { describe, expect, it } from 'vitest';
import { PHONE_COUNTRIES, digitSource, drawPhoneNumber, parseE164 } from '../../../src/core/phone/numbers.js';
import { SeededRandom } from '../../../src/sim/seeded-random.js';

const digits = (seed: number) => {
  const random = new SeededRandom(seed);
  return digitSource((n) => random.bytes(n));
};

describe('phone numbers', () => {
  it('supports US, CA, GB and DE among about 230 countries', () => {
    for (const country of ['US', 'CA', 'GB', 'DE']) expect(PHONE_COUNTRIES).toContain(country);
    expect(PHONE_COUNTRIES.length).toBeGreaterThan(200);
  });

  it('draws a valid E.164 mobile number of the asked country for every supported country', async () => {
    const next = digits(7);
    for (const country of PHONE_COUNTRIES) {
      const number = await drawPhoneNumber(country, next, () => false);
      expect(number).toMatch(/^\+[1-9]\d{6,14}$/);
      expect(isValidPhoneNumber(number), `${country} ${number}`).toBe(true);
      expect(parsePhoneNumberFromString(number)?.country, number).toBe(country);
    }
  });

  it('draws the same numbers from the same seed and skips taken ones', async () => {
    const first = [await drawPhoneNumber('US', digits(1), () => false), await drawPhoneNumber('GB', digits(1), () => false)];
    const again = [await drawPhoneNumber('US', digits(1), () => false), await drawPhoneNumber('GB', digits(1), () => false)];
    expect(again).toEqual(first);
    const taken = new Set<string>();
    const next = digits(2);
    for (let i = 0; i < 200; i++) taken.add(await drawPhoneNumber('DE', next, (n) => taken.has(n)));
    expect(taken.size).toBe(200);
    expect(await drawPhoneNumber('US', digits(1), async (n) => n === first[0])).not.toBe(first[0]);
  });

  it('refuses countries without numbers', async () => {
    await expect(drawPhoneNumber('XX', digits(1), () => false)).rejects.toThrow(RangeError);
    await expect(drawPhoneNumber('VA', digits(1), () => false)).rejects.toThrow(RangeError);
  });

  it('parses only canonical, valid E.164 text', () => {
    expect(parseE164('+14155552671')).toEqual({ number: '+14155552671', country: 'US' });
    expect(parseE164('+15005550006')).toEqual({ number: '+15005550006', country: 'US' });
    for (const bad of ['14155552671', '+1 415 555 2671', '+1415555267', '+15551234567', '+0123', '', '+', '+4415', '+１４１５５５５２６７１', '+14155552671\n']) {
      expect(parseE164(bad), bad).toBeUndefined();
    }
  });
});
