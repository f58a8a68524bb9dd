import type { z } from 'zod';
import { ApiError } from '../shared/api-error.js';

/** Dotted path of a zod issue, e.g. `attachments.0.content`. */
function issuePath(issue: z.core.$ZodIssue, prefix?: string): string | undefined {
  const keys = issue.code === 'unrecognized_keys' ? [...issue.path, ...issue.keys.slice(0, 1)] : issue.path;
  const dotted = keys.map(String).join('.');
  return dotted || prefix;
}

/** A readable sentence for the first issue of a failed parse. */
function issueMessage(issue: z.core.$ZodIssue, param: string | undefined): string {
  const where = param ? `${param}: ` : '';
  if (issue.code === 'invalid_type' && issue.input === undefined) return `${where}is required`;
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
  throw new ApiError('invalid_request', issueMessage(issue, param), param);
}
