import { z } from 'zod';

/*
 * Every check a schema here makes is also written into the JSON Schema that the OpenAPI document is
 * generated from (zod's own `pattern`/`minimum`/..., or `.meta()` for what a refinement checks), so
 * the document says what the server enforces. test/http/openapi-document.test.ts walks every route
 * schema and fails on a refinement that carries no such description.
 */

/** A string of at most `max` characters, counted as Unicode code points (not UTF-16 units), as JSON Schema's `maxLength` counts them. */
export function maxChars(max: number): z.ZodString {
  return z
    .string()
    .refine((text) => [...text].length <= max, { message: `must be at most ${max} characters` })
    .meta({ maxLength: max }) as unknown as z.ZodString;
}

/**
 * An integer query or body parameter: accepts a number, or a string of digits from a query
 * string. Out of range answers 400 (DECISIONS.md: `limit` is never clamped).
 */
export function intParam(min: number, max: number) {
  const error = `expected an integer from ${min} to ${max}`;
  return z.preprocess((value) => (typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value), z.number({ error }).int({ error }).min(min, { error }).max(max, { error }));
}

/** A host name, an IPv4 address or a bracketed IPv6 literal, and an optional port from 0 to 65535. */
const AUTHORITY =
  '(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\\.?|\\[[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*\\])' +
  '(?::(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?';

/** A URL with one of `schemes` (lower case, matched case-insensitively), as the pattern both sides check. */
function urlPattern(schemes: string[]): string {
  const scheme = schemes.map((name) => [...name].map((c) => `[${c.toUpperCase()}${c}]`).join('')).join('|');
  // The rest of the URL is printable ASCII without spaces: one spelling, nothing the URL parser rewrites.
  return `^(?:${scheme})://${AUTHORITY}(?:[/?#][\\x21-\\x7e]*)?$`;
}

/** A URL of at most 2,048 characters whose scheme is one of `schemes` (`'https'`, ...). */
function urlWith(schemes: string[], message: string): z.ZodString {
  const pattern = urlPattern(schemes);
  const grammar = new RegExp(pattern);
  return z
    .string()
    .max(2048)
    .refine(
      (text) => {
        if (!grammar.test(text)) return false;
        try {
          return schemes.includes(new URL(text).protocol.slice(0, -1));
        } catch {
          return false;
        }
      },
      { message },
    )
    .meta({ pattern, format: 'uri' }) as unknown as z.ZodString;
}

/** An https URL. */
export const httpsUrl = urlWith(['https'], 'must be an https URL');

/** An http or https URL (webhook endpoints, call-flow documents, pages to open). */
export const httpUrl = urlWith(['http', 'https'], 'must be an http or https URL');

/** An ISO 8601 timestamp as the service writes them. */
export const timestamp = z.string().meta({ format: 'date-time', description: 'ISO 8601 timestamp with milliseconds and Z' });

/** RFC 3339 date-time with seconds and an explicit zone (`Z` or `±hh:mm`). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

/** An ISO 8601 / RFC 3339 date-time with seconds and a zone, from a caller. */
export const isoDateTime = z
  .string()
  .refine((text) => DATE_TIME.test(text) && !Number.isNaN(Date.parse(text)), { message: 'must be an ISO 8601 date-time with seconds and a zone, such as 2026-01-31T12:00:00Z' })
  .meta({ format: 'date-time', pattern: DATE_TIME.source }) as unknown as z.ZodString;

/** A calendar date `YYYY-MM-DD` that exists. */
export const calendarDate = z
  .string()
  .refine(
    (text) => {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
      const ms = Date.parse(`${text}T00:00:00.000Z`);
      return !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(text);
    },
    { message: 'must be a date YYYY-MM-DD that exists' },
  )
  .meta({ format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$' }) as unknown as z.ZodString;

/** Whether a body field counts as given: present and not null. */
function given(body: Record<string, unknown>, key: string): boolean {
  return body[key] !== undefined && body[key] !== null;
}

/** The JSON Schema of "this key is given" (present, not null). */
function givenSchema(key: string): Record<string, unknown> {
  return { required: [key], properties: { [key]: { not: { type: 'null' } } } };
}

/**
 * An object schema that requires exactly one of `keys` (given = present and not null): enforced
 * as a refinement, documented as `oneOf`. The fault's `param` is the first key, or `whenSeveral`
 * when more than one is given.
 */
export function exactlyOneOf<S extends z.ZodType<Record<string, unknown>>>(schema: S, keys: readonly string[], whenSeveral: string = keys[0]!): S {
  return schema
    .superRefine((body, context) => {
      const count = keys.filter((key) => given(body, key)).length;
      if (count !== 1) {
        const param = count === 0 ? keys[0]! : whenSeveral;
        context.addIssue({ code: 'custom', path: [param], message: `expected exactly one of ${keys.join(' or ')}, got ${describeGiven(body, keys)}` });
      }
    })
    .meta({ oneOf: keys.map(givenSchema) }) as S;
}

/**
 * An object schema that requires at least one of `keys` (given = present and not null): enforced
 * as a refinement, documented as `anyOf`. The fault's `param` is the first key.
 */
export function atLeastOneOf<S extends z.ZodType<Record<string, unknown>>>(schema: S, keys: readonly string[]): S {
  return schema
    .superRefine((body, context) => {
      if (!keys.some((key) => given(body, key))) {
        context.addIssue({ code: 'custom', path: [keys[0]!], message: `expected at least one of ${keys.join(' or ')}, got none` });
      }
    })
    .meta({ anyOf: keys.map(givenSchema) }) as S;
}

function describeGiven(body: Record<string, unknown>, keys: readonly string[]): string {
  const present = keys.filter((key) => given(body, key));
  return present.length === 0 ? 'none' : `both ${present.join(' and ')}`;
}

/** How a value looks in a validation message: JSON for short values, its type otherwise. */
export function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 64 ? `${text.slice(0, 61)}..."` : text;
}

/**
 * An object whose keys the client chooses (memory metadata, filters, headers, fault matches): every own key is
 * kept as data, `__proto__`, `constructor` and `prototype` included (DECISIONS.md), which zod's
 * `record` would drop or turn into a prototype. At most `maxPairs` keys; each key and value
 * is checked by its schema, and a fault names `<key>`.
 */
export function dictionary<V extends z.ZodType>(keySchema: z.ZodType<string>, valueSchema: V, maxPairs: number) {
  return z
    .unknown()
    .transform((input, context) => {
      if (input === null || typeof input !== 'object' || Array.isArray(input)) {
        context.addIssue({ code: 'custom', message: `expected an object of string values, got ${shown(input)}`, input });
        return z.NEVER;
      }
      const entries = Object.entries(input);
      if (entries.length > maxPairs) {
        context.addIssue({ code: 'custom', message: `expected at most ${maxPairs} keys, got ${entries.length}`, input });
        return z.NEVER;
      }
      for (const [key, value] of entries) {
        const keyCheck = keySchema.safeParse(key);
        if (!keyCheck.success) {
          context.addIssue({ code: 'custom', path: [key], message: `key ${shown(key)}: ${keyCheck.error.issues[0]!.message}`, input: key });
          return z.NEVER;
        }
        const valueCheck = valueSchema.safeParse(value);
        if (!valueCheck.success) {
          const issue = valueCheck.error.issues[0]!;
          context.addIssue({
            code: 'custom',
            path: [key],
            message:
              issue.code === 'invalid_type' || issue.code === 'invalid_union'
                ? `expected ${z.toJSONSchema(valueSchema, { io: 'input' }).type === 'string' ? 'a string' : 'a string, number or boolean'}, got ${shown(value)}`
                : issue.message,
            input: value,
          });
          return z.NEVER;
        }
      }
      // Object.fromEntries defines own data properties, so `__proto__` stays a key, never a prototype.
      return Object.fromEntries(entries) as Record<string, z.output<V>>;
    })
    .meta({
      type: 'object',
      maxProperties: maxPairs,
      propertyNames: z.toJSONSchema(keySchema, { io: 'input' }),
      additionalProperties: z.toJSONSchema(valueSchema, { io: 'input' }),
    });
}
