import { ApiError, type ErrorCode } from '../core/shared/api-error.js';

/** A broken expectation of a conformance check: its message says what was expected and what came. */
export class CheckFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckFailure';
  }
}

/** Thrown by a check that cannot run against this target; the runner reports it as skipped with the message. */
export class CheckSkipped extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'CheckSkipped';
  }
}

/** Compact JSON for messages (long values are cut). */
export function show(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value, (_, item: unknown) => (typeof item === 'bigint' ? item.toString() : item)) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** @throws CheckFailure with `message` when `condition` is false */
export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new CheckFailure(message);
}

/** @throws CheckFailure when `actual` and `expected` differ as JSON values */
export function checkEqual(actual: unknown, expected: unknown, what: string): void {
  if (!sameJson(actual, expected)) throw new CheckFailure(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}

/** Deep equality of JSON values (key order ignored). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((key) => Object.hasOwn(b, key) && sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/**
 * Awaits a call that must fail with this DECISIONS.md error: status, code and (when given) param;
 * `param: null` requires that no param is set. Answers the error.
 * @throws CheckFailure when the call succeeds or fails otherwise
 */
export async function expectError(what: string, call: Promise<unknown>, status: number, code: ErrorCode, param?: string | null): Promise<ApiError> {
  let result: unknown;
  try {
    result = await call;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const got = `${error.status} ${error.code}${error.param === undefined ? '' : ` (param ${error.param})`}`;
    const want = `${status} ${code}${param ? ` (param ${param})` : ''}`;
    if (error.status !== status || error.code !== code) throw new CheckFailure(`${what}: expected ${want}, got ${got}: ${error.message}`);
    if (param === null && error.param !== undefined) throw new CheckFailure(`${what}: expected no param, got param ${error.param}`);
    if (typeof param === 'string' && error.param !== param) throw new CheckFailure(`${what}: expected ${want}, got ${got}`);
    return error;
  }
  throw new CheckFailure(`${what}: expected ${status} ${code}, but the call succeeded with ${show(result)}`);
}

/** Runs a call expected to succeed; an API error becomes a failure that names the call. @throws CheckFailure */
export async function expectOk<T>(what: string, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof ApiError) throw new CheckFailure(`${what}: expected success, got ${error.status} ${error.code}: ${error.message}`);
    throw error;
  }
}
