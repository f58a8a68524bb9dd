import type { z } from 'zod';

/** What a quick parser answers for an input it does not vouch for: zod decides (and words the error). */
export const UNDECIDED: unique symbol = Symbol('undecided');

/** The value zod would answer for `input`, or {@link UNDECIDED}. */
export type QuickParser = (input: unknown) => unknown;

/** The parts of a zod schema's internals a quick parser is derived from. */
interface Internals {
  def: {
    type: string;
    coerce?: boolean;
    innerType?: z.ZodType;
    shape?: Record<string, z.ZodType>;
    catchall?: z.ZodType;
  };
  traits: Set<string>;
  run: unknown;
  parse: unknown;
  optin?: string;
  optout?: string;
  values?: Set<unknown>;
}

const internals = (schema: z.ZodType): Internals => (schema as unknown as { _zod: Internals })._zod;

/** Parsers derived so far, by schema (null: the schema has a part no quick parser covers). */
const derived = new WeakMap<z.ZodType, QuickParser | null>();

/**
 * A parser derived from a zod schema that answers what `schema.safeParse(input)` answers as its
 * data, without zod's per-field payloads and issue arrays, for the inputs it can vouch for; for
 * any other input it answers {@link UNDECIDED} and the caller asks zod, so zod stays the one
 * judge of every refusal and of every schema part not covered here. Covered: plain strings,
 * booleans and enums (no checks, refinements or coercion), `.optional()` and `.nullable()` of
 * those, and objects (strip or strict) of covered fields; an uncovered optional field is fine
 * while absent. Null for a schema that is itself not covered. Every request body, query and
 * path is validated, and for a send zod's object parse was a tenth of the whole in-process call.
 */
export function quickParserOf(schema: z.ZodType): QuickParser | null {
  let parser = derived.get(schema);
  if (parser === undefined) derived.set(schema, (parser = derive(schema)));
  return parser;
}

const undecided: QuickParser = () => UNDECIDED;

/** The quick parser of `schema`, or null when it is not covered. */
function derive(schema: z.ZodType): QuickParser | null {
  const zod = internals(schema);
  const { def, traits } = zod;
  // A check or refinement attached to the schema makes zod's `run` differ from its `parse`.
  if (zod.run !== zod.parse || def.coerce) return null;
  switch (def.type) {
    case 'string':
      // Formats (email, url, ...) are strings that check themselves.
      if (!traits.has('$ZodString') || traits.has('$ZodStringFormat') || traits.has('$ZodCheck')) return null;
      return (input) => (typeof input === 'string' ? input : UNDECIDED);
    case 'boolean':
      return traits.has('$ZodBoolean') ? (input) => (typeof input === 'boolean' ? input : UNDECIDED) : null;
    case 'enum': {
      const values = zod.values;
      if (!traits.has('$ZodEnum') || !values) return null;
      return (input) => (values.has(input) ? input : UNDECIDED);
    }
    case 'optional': {
      // An exact optional refuses undefined, and a defaulted inner schema fills it in.
      if (!traits.has('$ZodOptional') || traits.has('$ZodExactOptional') || zod.optin !== 'optional' || !def.innerType) return null;
      const inner = derive(def.innerType) ?? undecided;
      return (input) => (input === undefined ? undefined : inner(input));
    }
    case 'nullable': {
      if (!traits.has('$ZodNullable') || !def.innerType) return null;
      const inner = derive(def.innerType);
      return inner && ((input) => (input === null ? null : inner(input)));
    }
    case 'object':
      return traits.has('$ZodObject') ? deriveObject(zod) : null;
    default:
      return null;
  }
}

/** One field of an object: its key, its parser, and whether it may be absent. */
interface Field {
  key: string;
  parse: QuickParser;
  optional: boolean;
}

/**
 * An object's quick parser. As zod's own: the input is an object that is not an array; each shape
 * key in shape order, present when `key in input`; a present field's value is its parse, an
 * absent optional field is left out and an absent required one is zod's to refuse; a strict
 * object refuses any other key its `for...in` finds, a stripping one drops it.
 */
function deriveObject(zod: Internals): QuickParser | null {
  const { shape, catchall } = zod.def;
  const catchallType = catchall === undefined ? undefined : internals(catchall).def.type;
  if (!shape || (catchallType !== undefined && catchallType !== 'never') || Object.getOwnPropertySymbols(shape).length > 0) return null;
  const strict = catchallType === 'never';
  const fields: Field[] = [];
  for (const key of Object.keys(shape)) {
    if (key === '__proto__') return null;
    const field = internals(shape[key]!);
    const optional = field.optin !== undefined;
    // Absence handled as zod's plain optional handles it, and nothing else.
    if (optional && (field.optin !== 'optional' || field.optout !== 'optional')) return null;
    fields.push({ key, parse: derive(shape[key]!) ?? undecided, optional });
  }
  const known = new Set(fields.map((field) => field.key));
  return (input) => {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return UNDECIDED;
    if (strict) {
      for (const key in input) if (!known.has(key)) return UNDECIDED;
    }
    const output: Record<string, unknown> = {};
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i]!;
      if (!(field.key in input)) {
        if (field.optional) continue;
        return UNDECIDED;
      }
      const value = field.parse((input as Record<string, unknown>)[field.key]);
      if (value === UNDECIDED) return UNDECIDED;
      output[field.key] = value;
    }
    return output;
  };
}
