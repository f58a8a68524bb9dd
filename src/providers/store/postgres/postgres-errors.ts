import { ApiError } from '../../../core/shared/api-error.js';

/** Seconds a client is told to wait before retrying when the database is away. */
export const UNAVAILABLE_RETRY_AFTER_S = 2;

/** A record changed (or went) after this transaction read it: the unit runs again from the start. */
export class WriteConflict extends Error {
  constructor(
    readonly collection: string,
    readonly id: string,
  ) {
    super(`${collection}/${id} was changed by another transaction after it was read`);
    this.name = 'WriteConflict';
  }
}

/** Codes of failures that leave nothing applied and succeed when the unit runs again. */
const RETRYABLE = new Set(['40001', '40P01', '23505']);

/** Codes of a database that cannot be reached (the connection, not the request). */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Whether running the unit again may succeed: a serialisation failure, a deadlock, a lost race on a new id, a write conflict. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof WriteConflict) return true;
  const code = codeOf(error);
  return code !== undefined && RETRYABLE.has(code);
}

/** Whether `error` is a check of the batch function that failed (or any lost race the database reports as 40001). */
export function isCheckFailure(error: unknown): boolean {
  return codeOf(error) === '40001';
}

/** Whether `error` says the database is away (connection refused or lost, server shutting down, too many clients). */
export function isUnreachable(error: unknown): boolean {
  const code = codeOf(error);
  if (code === undefined) return false;
  return UNREACHABLE.has(code) || code.startsWith('08');
}

/** The answer for a request the database could not serve: 503 `unavailable`, nothing applied. */
export function unavailable(): ApiError {
  return new ApiError('unavailable', 'the database cannot be reached; nothing was applied, retry later', undefined, {
    'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S),
  });
}

/** `error` as the caller should see it: 503 for a database that is away, else unchanged. */
export function translate(error: unknown): unknown {
  return isUnreachable(error) ? unavailable() : error;
}
