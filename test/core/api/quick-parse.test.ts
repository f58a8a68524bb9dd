import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { quickParserOf, UNDECIDED } from '../../../src/core/api/quick-parse.js';
import { SendPaymentBody } from '../../../src/core/wallet/wallet.schema.js';
import { createRuntime, type Runtime } from '../../../src/index.js';

type Internals = { def: { type: string; innerType?: z.ZodType; shape?: Record<string, z.ZodType> }; values?: Set<unknown> };
const internals = (schema: z.ZodType) => (schema as unknown as { _zod: Internals })._zod;

/** Any value, of the kinds a JSON body holds and a few it cannot. */
const stray = fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.constant([]), fc.object({ maxDepth: 1, maxKeys: 2 }));

/** Inputs for `schema`: mostly of its own shape (so many are valid), with wrong values, missing and unknown keys mixed in. */
function inputsOf(schema: z.ZodType, depth = 0): fc.Arbitrary<unknown> {
  const zod = internals(schema);
  switch (zod.def.type) {
    case 'string':
      return fc.oneof({ weight: 4, arbitrary: fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('bob', '0.01', 'usd', '', 'x'.repeat(600))) }, { weight: 1, arbitrary: stray });
    case 'enum':
      return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...zod.values!) }, { weight: 1, arbitrary: stray });
    case 'boolean':
      return fc.oneof({ weight: 4, arbitrary: fc.boolean() }, { weight: 1, arbitrary: stray });
    case 'optional':
      return fc.oneof(fc.constant(undefined), inputsOf(zod.def.innerType!, depth));
    case 'nullable':
      return fc.oneof(fc.constant(null), inputsOf(zod.def.innerType!, depth));
    case 'object': {
      if (depth > 3) return stray;
      const shape = zod.def.shape!;
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const key of Object.keys(shape)) record[key] = inputsOf(shape[key]!, depth + 1);
      const required = Object.keys(shape).filter((key) => internals(shape[key]!).def.type !== 'optional');
      const own = fc.record(record, { requiredKeys: required });
      return fc.oneof(
        { weight: 6, arbitrary: own },
        { weight: 1, arbitrary: fc.record(record, { requiredKeys: [] }) },
        { weight: 1, arbitrary: fc.tuple(own, fc.string({ maxLength: 8 }), stray).map(([value, key, extra]) => ({ ...(value as object), [key]: extra })) },
        { weight: 1, arbitrary: stray },
      );
    }
    default:
      return fc.oneof(stray, fc.anything({ maxDepth: 2 }));
  }
}

/** What zod answers: the data, or that it refused. */
function viaZod(schema: z.ZodType, input: unknown): { data: unknown } | 'refused' {
  const result = schema.safeParse(input, { reportInput: true });
  return result.success ? { data: result.data } : 'refused';
}

/** Keys in order, all the way down (toStrictEqual ignores key order). */
function keyOrder(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  return Object.entries(value).map(([key, child]) => [key, keyOrder(child)]);
}

/** Checks one input: whatever the quick parser decides, zod answers the same data (key order included). */
function expectAsZod(schema: z.ZodType, input: unknown): boolean {
  const quick = quickParserOf(schema);
  if (quick === null) return false;
  const value = quick(input);
  if (value === UNDECIDED) return false;
  const zod = viaZod(schema, input);
  expect(zod).not.toBe('refused');
  expect(value).toStrictEqual((zod as { data: unknown }).data);
  expect(keyOrder(value)).toStrictEqual(keyOrder((zod as { data: unknown }).data));
  return true;
}

describe('quickParserOf', () => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await createRuntime({ seed: 1 });
  });
  afterAll(() => runtime.close());

  it('answers what zod answers for every input it decides, over every route schema', () => {
    const schemas = runtime.routes().flatMap((route) => [route.body, route.query, route.params].filter((schema): schema is z.ZodType => schema !== undefined));
    expect(schemas.length).toBeGreaterThan(50);
    let covered = 0;
    let decided = 0;
    for (const schema of schemas) {
      if (quickParserOf(schema) === null) continue;
      covered++;
      fc.assert(
        fc.property(inputsOf(schema), (input) => {
          if (expectAsZod(schema, input)) decided++;
        }),
        { numRuns: 300 },
      );
    }
    // Most route schemas are covered (many only while their refined fields are absent), and the
    // inputs drawn exercise the decisions: about 450 of some 8,000 in a run.
    expect(covered).toBeGreaterThan(schemas.length / 2);
    expect(decided).toBeGreaterThan(covered * 4);
  });

  it('decides a well-formed send and leaves everything else to zod', () => {
    const quick = quickParserOf(SendPaymentBody)!;
    expect(quick).not.toBeNull();
    const send = { to: 'bob', amount: '0.01', asset: 'usd' };
    expect(quick(send)).toStrictEqual(send);
    expect(quick(send)).not.toBe(send);
    expect(quick({ network: 'base', asset: 'usdc', amount: '1', to: '0xabc' })).toStrictEqual({ to: '0xabc', amount: '1', asset: 'usdc', network: 'base' });
    // A memo is refined (at most 500 code points): zod judges it; so with every fault.
    for (const input of [
      { ...send, memo: 'hi' },
      { ...send, asset: 'btc' },
      { ...send, amount: 1 },
      { to: 'bob', amount: '0.01' },
      { ...send, extra: 1 },
      JSON.parse('{"to":"bob","amount":"0.01","asset":"usd","__proto__":{}}'),
      [send],
      null,
      'text',
    ]) {
      expect(quick(input)).toBe(UNDECIDED);
    }
    expect(quick({ ...send, memo: undefined, network: undefined })).toStrictEqual(SendPaymentBody.parse({ ...send, memo: undefined, network: undefined }));
  });

  it('covers no schema with a check, refinement, coercion, format, default or transform', () => {
    for (const schema of [
      z.string().min(1),
      z.string().refine((text) => text.length > 0),
      z.coerce.string(),
      z.email(),
      z.string().default('x'),
      z.string().transform((text) => text.trim()),
      z.number(),
      z.literal('a'),
      z.object({ a: z.string() }).refine(() => true),
      z.object({ a: z.string().default('x') }),
      z.looseObject({ a: z.string() }),
      z.object({ a: z.string() }).catchall(z.string()),
    ]) {
      expect(quickParserOf(schema as z.ZodType)).toBeNull();
    }
    // An uncovered field is zod's to judge whenever it is present.
    const withNumber = quickParserOf(z.strictObject({ a: z.string(), n: z.number().optional() }))!;
    expect(withNumber({ a: 'x' })).toStrictEqual({ a: 'x' });
    expect(withNumber({ a: 'x', n: 1 })).toBe(UNDECIDED);
  });
});
