import { z } from 'zod';
import { parseDuration } from '../../core/shared/duration.js';

/** A value as it comes: a flag's or variable's text, a flag's `true`, a repeated flag's list, or the config file's JSON value. */
export type RawValue = string | boolean | number | string[];

/**
 * How one kind of option is read: its type in the config file (a zod schema, also the source of
 * `config schema`), how the command line takes it, and how any raw value becomes the typed one.
 * `parse` throws an Error whose message completes "<where> ..." (`must be ..., got "x"`).
 */
export interface OptionKind<T> {
  json: z.ZodType;
  cli: { type: 'string' | 'boolean'; multiple?: true };
  parse(raw: RawValue): T;
}

const shown = (raw: RawValue) => JSON.stringify(Array.isArray(raw) ? raw.join(',') : String(raw));

/** Free text (non-empty). */
export function text(): OptionKind<string> {
  return {
    json: z.string().min(1),
    cli: { type: 'string' },
    parse(raw) {
      if (typeof raw !== 'string' || raw === '') throw new Error(`must be a non-empty string, got ${shown(raw)}`);
      return raw;
    },
  };
}

/** An integer in `min..max`, as a JSON number or a string of digits. */
export function integer(min: number, max: number, what = `an integer ${min}..${max}`): OptionKind<number> {
  return {
    json: z.union([z.number().int().min(min).max(max), z.string().regex(/^\d+$/)]),
    cli: { type: 'string' },
    parse(raw) {
      const value = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isInteger(value) || value < min || value > max) throw new Error(`must be ${what}, got ${shown(raw)}`);
      return value;
    },
  };
}

/** A switch: `--flag`, JSON true/false, or `true`/`false`/`1`/`0` in a variable. */
export function flag(): OptionKind<boolean> {
  return {
    json: z.boolean(),
    cli: { type: 'boolean' },
    parse(raw) {
      if (raw === true || raw === 'true' || raw === '1') return true;
      if (raw === false || raw === 'false' || raw === '0') return false;
      throw new Error(`must be true or false, got ${shown(raw)}`);
    },
  };
}

/** A duration such as `30s` or `12h`, kept as written. */
export function duration(): OptionKind<string> {
  return {
    json: z.string().regex(/^\d+(\.\d+)?(ms|s|m|h|d|w)$/),
    cli: { type: 'string' },
    parse(raw) {
      try {
        parseDuration(String(raw));
      } catch {
        throw new Error(`must be a duration such as 30s, 12h, 90m or 500ms, got ${shown(raw)}`);
      }
      return String(raw);
    },
  };
}

/** One of `choices`. */
export function choice<const C extends string>(choices: readonly C[]): OptionKind<C> {
  return {
    json: z.enum(choices as unknown as [C, ...C[]]),
    cli: { type: 'string' },
    parse(raw) {
      if (typeof raw !== 'string' || !(choices as readonly string[]).includes(raw)) {
        const list = choices.length === 2 ? `${choices[0]} or ${choices[1]}` : `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`;
        throw new Error(`must be ${list}, got ${shown(raw)}`);
      }
      return raw as C;
    },
  };
}

/** A list of non-empty strings: a repeated flag, a JSON array, or comma-separated in a variable. */
export function list(): OptionKind<string[]> {
  return {
    json: z.array(z.string().min(1)),
    cli: { type: 'string', multiple: true },
    parse(raw) {
      const items = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',').map((item) => item.trim()) : [];
      if (items.length === 0 || items.some((item) => typeof item !== 'string' || item === '')) throw new Error(`must be a list of non-empty strings, got ${shown(raw)}`);
      return items;
    },
  };
}

/** An integer or any other text (the seed: `--seed 42` or `--seed my-world`). */
export function seedValue(): OptionKind<number | string> {
  return {
    json: z.union([z.number().int(), z.string().min(1)]),
    cli: { type: 'string' },
    parse(raw) {
      if (typeof raw === 'number' && Number.isInteger(raw)) return raw;
      if (typeof raw !== 'string' || raw === '') throw new Error(`must be an integer or a non-empty string, got ${shown(raw)}`);
      return /^-?\d+$/.test(raw) ? Number(raw) : raw;
    },
  };
}
