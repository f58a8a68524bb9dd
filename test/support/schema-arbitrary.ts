/**
 * fast-check arbitraries from the JSON Schemas of the OpenAPI document: values the document calls
 * valid (drawn from the schema's own keywords, then kept only when ajv agrees) and values it calls
 * invalid (a valid value with one fault: a required key dropped, a value of the wrong type, an
 * unknown key). Covers the keywords the document uses; anything else draws from `fc.anything`.
 */
import fc from 'fast-check';
import type { ValidateFunction } from 'ajv';
import { isWellFormed } from '../../src/core/shared/unicode.js';

type Schema = Record<string, any>;

const LONG_CAP = 40;

/** Strings as fast-check draws them, limited in length and well-formed (the server refuses unpaired surrogates; JSON Schema cannot say so). */
function stringOf(schema: Schema): fc.Arbitrary<string> {
  if (schema.format === 'email') return fc.emailAddress().filter((text) => text.length <= 100);
  if (schema.format === 'date-time') {
    return fc.date({ min: new Date('2026-01-02T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true }).map((date) => date.toISOString());
  }
  if (schema.format === 'date') return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10));
  const min = schema.minLength ?? 0;
  const max = Math.max(min, Math.min(schema.maxLength ?? LONG_CAP, LONG_CAP));
  const base = schema.pattern ? fc.stringMatching(new RegExp(schema.pattern)) : fc.string({ minLength: min, maxLength: max });
  return base.filter((text) => isWellFormed(text) && [...text].length >= min && (schema.maxLength === undefined || [...text].length <= schema.maxLength));
}

/** Values of one schema, before ajv's check (the caller filters). */
export function draw(schema: Schema | boolean | undefined): fc.Arbitrary<unknown> {
  if (schema === undefined || schema === true) return fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean());
  if (schema === false) return fc.constant(undefined);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches && !schema.type && !schema.properties) return fc.oneof(...branches.map(draw));
  const type = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (type.length > 1) return fc.oneof(...type.map((t: string) => draw({ ...schema, type: t })));
  switch (type[0]) {
    case 'string':
      return stringOf(schema);
    case 'integer':
      return fc.integer({ min: Math.max(schema.minimum ?? -1000, -1e9), max: Math.min(schema.maximum ?? 1000, 1e9) });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1000, max: Math.min(schema.maximum ?? 1000, 1e9), noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const min = schema.minItems ?? 0;
      return fc.array(draw(schema.items), { minLength: min, maxLength: Math.max(min, Math.min(schema.maxItems ?? 3, 3)) });
    }
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set<string>(schema.required ?? []);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, property] of Object.entries(properties)) record[key] = draw(property);
      if (Object.keys(properties).length === 0 && schema.additionalProperties && typeof schema.additionalProperties === 'object') {
        return fc.dictionary(stringOf(schema.propertyNames ?? { type: 'string', minLength: 1, maxLength: 10 }), draw(schema.additionalProperties), { maxKeys: 3 });
      }
      return fc.record(record, { requiredKeys: [...required].filter((key) => key in record) });
    }
    default:
      return fc.anything();
  }
}

/** Values the schema (as ajv reads it) calls valid. */
export function validOf(schema: Schema, validate: ValidateFunction): fc.Arbitrary<unknown> {
  return draw(schema).filter((value) => validate(value) === true);
}

/** A valid object with one fault, which ajv must then call invalid. */
export function invalidOf(schema: Schema, validate: ValidateFunction): fc.Arbitrary<{ value: unknown; fault: string }> {
  const properties = Object.keys((schema.properties ?? {}) as Record<string, unknown>);
  const required: string[] = schema.required ?? [];
  const faults: Array<fc.Arbitrary<{ value: unknown; fault: string }>> = [
    validOf(schema, validate).map((value) => ({ value: { ...(value as object), zz_unknown_field: 1 }, fault: 'unknown key zz_unknown_field' })),
    fc.constantFrom<unknown>(42, 'text', [], null).map((value) => ({ value, fault: `body ${JSON.stringify(value)}` })),
  ];
  if (required.length > 0) {
    faults.push(
      fc.tuple(validOf(schema, validate), fc.constantFrom(...required)).map(([value, key]) => {
        const copy = { ...(value as Record<string, unknown>) };
        delete copy[key];
        return { value: copy, fault: `without ${key}` };
      }),
    );
  }
  if (properties.length > 0) {
    faults.push(
      fc.tuple(validOf(schema, validate), fc.constantFrom(...properties), fc.constantFrom<unknown>(12345, true, { x: 1 }, [1])).map(([value, key, wrong]) => ({
        value: { ...(value as object), [key]: wrong },
        fault: `${key} = ${JSON.stringify(wrong)}`,
      })),
    );
  }
  return fc.oneof(...faults).filter(({ value }) => validate(value) === false);
}
