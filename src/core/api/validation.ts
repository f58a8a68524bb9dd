import type { z } from 'zod';
import { ApiError } from '../shared/api-error.js';

/** Dotted path of a zod issue, e.g. `attachments.0.content`. */
function issuePath(issue: z.core.$ZodIssue, prefix?: string): string | undefined {
  const keys = issue.code === 'unrecognized_keys' ? [...issue.path, ...issue.keys.slice(0, 1)] : issue.path;
  const dotted = keys.map(String).join('.');
  return dotted || prefix;
}

/** The value at a zod issue's path in the parsed input (undefined when absent). */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** A readable sentence for the first issue of a failed parse. */
function issueMessage(issue: z.core.$ZodIssue, param: string | undefined, input: unknown): string {
  const where = param ? `${param}: ` : '';
  // zod leaves `issue.input` out unless asked, so presence is read from the input itself: a value
  // that is there but of the wrong type is never "required".
  if (issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined) return `${where}is required`;
  if (issue.code === 'unrecognized_keys') return `${where}unknown parameter`;
  return `${where}${issue.message}`;
}

/**
 * Parses untrusted input with a route schema.
 * @throws ApiError 400 invalid_request whose `param` is the dotted path of the first fault.
 */
export function parseInput<T>(schema: z.ZodType<T>, input: unknown, fallbackParam?: string): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const param = issuePath(issue, fallbackParam);
  throw new ApiError('invalid_request', issueMessage(issue, param, input), param);
}
