import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SeededRandom } from '../../src/sim/seeded-random.js';
import { ID_PREFIX, type IdKind } from '../../src/core/shared/ids.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('SeededRandom', () => {
  it('gives the same sequence for the same seed', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.string()), (seed) => {
        const a = new SeededRandom(seed);
        const b = new SeededRandom(seed);
        expect([hex(a.bytes(37)), a.id('agent'), a.secret(40), a.state()]).toEqual([hex(b.bytes(37)), b.id('agent'), b.secret(40), b.state()]);
      }),
      { numRuns: 50 },
    );
  });

  it('gives different sequences for different seeds, including 1 and "1"-like neighbours', () => {
    const outputs = [0, 1, 2, 'a', 'b', 42, '42x'].map((seed) => hex(new SeededRandom(seed).bytes(32)));
    expect(new Set(outputs).size).toBe(outputs.length);
  });

  it('defaults to seed 0', () => {
    expect(hex(new SeededRandom().bytes(16))).toBe(hex(new SeededRandom(0).bytes(16)));
  });

  it('continues the same sequence after state() and restore()', () => {
    const original = new SeededRandom('snap');
    original.bytes(13);
    original.id('memory');
    const state = original.state();
    expect(state).toMatch(/^[0-9a-f]{32}$/);
    const expected = [hex(original.bytes(50)), original.secret(12), original.id('card')];

    const resumed = new SeededRandom('some other seed');
    resumed.restore(state);
    expect([hex(resumed.bytes(50)), resumed.secret(12), resumed.id('card')]).toEqual(expected);
  });

  it('refuses a state it did not produce', () => {
    const random = new SeededRandom(1);
    const before = random.state();
    expect(() => random.restore('not a state')).toThrow(RangeError);
    expect(() => random.restore('ABCDEF'.padEnd(32, '0'))).toThrow(RangeError);
    expect(random.state()).toBe(before);
  });

  it('does not repeat itself over many draws', () => {
    const random = new SeededRandom(3);
    const ids = new Set(Array.from({ length: 2000 }, () => random.id('message')));
    expect(ids.size).toBe(2000);
  });

  it('prefixes ids with the prefix of their kind followed by 24 base62 characters', () => {
    const random = new SeededRandom(9);
    for (const kind of Object.keys(ID_PREFIX) as IdKind[]) {
      const id = random.id(kind);
      expect(id).toMatch(new RegExp(`^${ID_PREFIX[kind]}_[0-9A-Za-z]{24}$`));
    }
    expect(random.id('agent').startsWith('agt_')).toBe(true);
    expect(random.id('browserSession').startsWith('bs_')).toBe(true);
  });

  it('makes secrets of exactly the requested length of base62 characters', () => {
    const random = new SeededRandom(5);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200 }), (length) => {
        expect(random.secret(length)).toMatch(new RegExp(`^[0-9A-Za-z]{${length}}$`));
      }),
      { numRuns: 100 },
    );
  });

  it('uses every base62 character in secrets', () => {
    const text = new SeededRandom(11).secret(5000);
    expect(new Set(text).size).toBe(62);
  });

  it('returns the requested number of bytes', () => {
    const random = new SeededRandom(2);
    for (const n of [0, 1, 3, 4, 5, 33]) expect(random.bytes(n)).toHaveLength(n);
  });
});
