import type { z } from 'zod';
import { ApiError } from '../shared/api-error.js';
import { shown } from '../shared/schemas.js';
import { quickParserOf, UNDECIDED } from './quick-parse.js';

/** Dotted path of a zod issue, e.g. `attachments.0.content`. */
function issuePath(issue: z.core.$ZodIssue, prefix?: string): string | undefined {
  const keys = issue.code === 'unrecognized_keys' ? [...issue.path, ...issue.keys.slice(0, 1)] : issue.path;
  const dotted = keys.map(String).join('.');
  return dotted || prefix;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** What zod's own bound messages mean, in words: "at least 1 character", "at most 100". */
function bound(issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall, side: 'least' | 'most'): string {
  const limit = 'minimum' in issue ? issue.minimum : issue.maximum;
  const inclusive = issue.inclusive !== false;
  const words = side === 'least' ? (inclusive ? 'at least' : 'more than') : inclusive ? 'at most' : 'less than';
  const unit = issue.origin === 'string' ? (Number(limit) === 1 ? ' character' : ' characters') : issue.origin === 'array' || issue.origin === 'set' ? (Number(limit) === 1 ? ' item' : ' items') : '';
  return `${words} ${String(limit)}${unit}`;
}

/** What the first issue expected, as a phrase ("expected ..." or the schema's own "must ..."). */
function expectation(issue: z.core.$ZodIssue): string {
  // A message written by the schema (not zod's "Invalid ..."/"Too ..." defaults) says it best.
  if (!/^(Invalid|Too (small|big)|Expected|Unrecognized)/.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
    case 'too_small':
      return `expected ${issue.origin === 'string' || issue.origin === 'array' ? '' : 'a value of '}${bound(issue, 'least')}`;
    case 'too_big':
      return `expected ${issue.origin === 'string' || issue.origin === 'array' ? '' : 'a value of '}${bound(issue, 'most')}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'invalid_format':
      return `expected ${issue.format === 'regex' ? 'a string matching the documented pattern' : `a valid ${issue.format}`}`;
    case 'not_multiple_of':
      return `expected a multiple of ${String(issue.divisor)}`;
    default:
      return issue.message;
  }
}

/**
 * A readable sentence for the first issue of a failed parse: what was expected and what came
 * (DECISIONS.md), "is required" only when nothing came.
 */
function issueMessage(issue: z.core.$ZodIssue, param: string | undefined): string {
  const where = param ? `${param}: ` : '';
  if (issue.code === 'unrecognized_keys') return `${where}is not a parameter of this request`;
  const came = 'input' in issue;
  if (issue.code === 'invalid_type' && came && issue.input === undefined) return `${where}is required`;
  const expected = expectation(issue);
  if (!came || /\bgot\b/.test(expected)) return `${where}${expected}`;
  return `${where}${expected}, got ${shown(issue.input)}`;
}

/** zod's parse options of every request (zod copies them, so one object serves all). */
const PARSE_OPTIONS = { reportInput: true } as const;

/**
 * Parses untrusted input with a route schema: the quick parser derived from it when it vouches for
 * the input (the usual well-formed request), else zod, which words every refusal.
 * @throws ApiError 400 invalid_request whose `param` is the dotted path of the first fault.
 */
export function parseInput<T>(schema: z.ZodType<T>, input: unknown, fallbackParam?: string): T {
  const quick = quickParserOf(schema);
  if (quick !== null) {
    const value = quick(input);
    if (value !== UNDECIDED) return value as T;
  }
  const result = schema.safeParse(input, PARSE_OPTIONS);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const param = issuePath(issue, fallbackParam);
  throw new ApiError('invalid_request', issueMessage(issue, param), param);
}
