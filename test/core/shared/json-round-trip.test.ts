import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonRoundTrip } from '../../../src/core/shared/json.js';

/** What the text round trip answers, or the error it throws. */
function viaText(value: unknown): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(JSON.stringify(value) as string) };
  } catch (error) {
    return { error: (error as Error).constructor.name };
  }
}

function viaCopy(value: unknown): { value: unknown } | { error: string } {
  try {
    return { value: jsonRoundTrip(value) };
  } catch (error) {
    return { error: (error as Error).constructor.name };
  }
}

/** Same value, same key order, same prototypes (toStrictEqual), same error. */
function expectSame(value: unknown): void {
  const copy = viaCopy(value);
  const text = viaText(value);
  expect(copy).toStrictEqual(text);
  if ('value' in copy && 'value' in text) expect(JSON.stringify(copy.value)).toBe(JSON.stringify(text.value));
}

describe('jsonRoundTrip', () => {
  it('answers what JSON.parse(JSON.stringify(value)) answers, for any value fast-check makes', () => {
    fc.assert(
      fc.property(
        fc.anything({ withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true, withSparseArray: true, withNullPrototype: true, withBoxedValues: true, withObjectString: true }),
        (value) => expectSame(value),
      ),
      { numRuns: 3000 },
    );
  });

  it('answers the same for the values JSON writes specially', () => {
    const cases: unknown[] = [
      -0,
      [-0, Number.NaN, Number.POSITIVE_INFINITY],
      { a: undefined, b: () => 1, c: Symbol('s'), d: 1 },
      [undefined, () => 1, Symbol('s')],
      { when: new Date(0) },
      { toJSON: () => ({ replaced: true }) },
      { toJSON: 'not a function', kept: 1 },
      JSON.parse('{"__proto__": {"polluted": true}, "x": 1}'),
      { 2: 'b', 1: 'a', z: 'z', y: 'y' },
      Object.create(null, { visible: { value: 1, enumerable: true }, hidden: { value: 2, enumerable: false } }),
      new Map([[1, 2]]),
      new Uint8Array([1, 2]),
      { n: 10n },
      'text with a lone \ud800 surrogate',
      Object.assign([1, 2], { extra: 'dropped' }),
      Object.assign([1, 2], { toJSON: () => 'replaced' }),
      { list: Object.assign([3], { toJSON: () => ({ inner: true }) }) },
    ];
    for (const value of cases) expectSame(value);
  });

  it('leaves out what an object inherits, even an enumerable property of a polluted Object.prototype', () => {
    Object.defineProperty(Object.prototype, 'polluted', { value: 'inherited', enumerable: true, configurable: true, writable: true });
    try {
      expectSame({ own: 1, nested: { also: [{ x: 2 }] } });
      expectSame(Object.create({ inherited: 1 }, { own: { value: 2, enumerable: true } }));
    } finally {
      delete (Object.prototype as Record<string, unknown>).polluted;
    }
  });

  it('throws as the text round trip does for cycles and what JSON cannot write at the top', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    for (const value of [cyclic, undefined, () => 1, Symbol('s'), 1n]) expectSame(value);
    expect(() => jsonRoundTrip(cyclic)).toThrow(TypeError);
  });

  it('copies deep values past its direct depth through the text', () => {
    let deep: unknown = { leaf: [1, 'two', null] };
    for (let i = 0; i < 200; i++) deep = { next: deep, list: [i] };
    expectSame(deep);
  });

  it('answers a copy that shares nothing mutable with its input', () => {
    const input = { list: [{ a: 1 }], inner: { b: 'x' } };
    const copy = jsonRoundTrip(input);
    expect(copy).toStrictEqual(input);
    expect(copy.list).not.toBe(input.list);
    expect(copy.list[0]).not.toBe(input.list[0]);
    expect(copy.inner).not.toBe(input.inner);
  });
});
