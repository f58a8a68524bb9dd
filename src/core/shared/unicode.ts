/** A lone high surrogate (no low one after it) or a lone low surrogate (no high one before it). */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether a string is well-formed UTF-16 (every surrogate paired), i.e. Unicode text. */
export function isWellFormed(text: string): boolean {
  return !UNPAIRED_SURROGATE.test(text);
}

/** Deepest nesting of arrays and objects a request may send (DECISIONS.md: JSON over 256 levels is 400). */
export const MAX_NESTING = 256;

/** Thrown by {@link illFormedPath} for a value nested deeper than {@link MAX_NESTING} levels. */
export class NestedTooDeep extends Error {
  constructor() {
    super(`nested deeper than ${MAX_NESTING} levels`);
    this.name = 'NestedTooDeep';
  }
}

/**
 * The dotted path of the first string (value or object key) in `value` that holds an unpaired
 * UTF-16 surrogate, `''` for the value itself, or undefined when every string is well-formed.
 * The walk stops at {@link MAX_NESTING} levels, so no depth a client sends overflows the stack.
 * @throws NestedTooDeep for arrays or objects nested deeper than {@link MAX_NESTING} levels
 */
export function illFormedPath(value: unknown, path = '', depth = 0): string | undefined {
  if (typeof value === 'string') return isWellFormed(value) ? undefined : path;
  if (value === null || typeof value !== 'object') return undefined;
  if (depth >= MAX_NESTING) throw new NestedTooDeep();
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = illFormedPath(value[i], path ? `${path}.${i}` : String(i), depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  // Only plain data is walked (JSON bodies, queries, path parameters); uploads are streams.
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return undefined;
  // for...in with an own-property check visits what Object.entries would, without its arrays.
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item = (value as Record<string, unknown>)[key];
    if (!isWellFormed(key)) return path ? `${path}.${key}` : key;
    if (typeof item !== 'string' && (item === null || typeof item !== 'object')) continue;
    const found = illFormedPath(item, path ? `${path}.${key}` : key, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}
