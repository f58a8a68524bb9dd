/** Every error code of DECISIONS.md with the HTTP status it answers. */
export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_amount: 400,
  invalid_recipient: 400,
  unsupported_network: 400,
  content_too_long: 400,
  unauthorized: 401,
  insufficient_funds: 402,
  policy_violation: 403,
  agent_suspended: 403,
  not_found: 404,
  recipient_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  already_exists: 409,
  idempotency_conflict: 409,
  idempotency_key_in_use: 409,
  conflict: 409,
  payload_too_large: 413,
  quota_exceeded: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  unavailable: 503,
  upstream_timeout: 504,
} as const;

/** A code of the DECISIONS.md error table. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** The JSON body of every error answer. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; param?: string };
}

/**
 * The single error type of the service: carries the code, the status the code maps to, a
 * human-readable message and, where one input is at fault, its dotted path.
 */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param?: string,
    /** Extra answer headers, such as `Retry-After` on 429. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = ERROR_STATUS[code];
  }

  /** The wire body of this error. */
  toBody(): ErrorBody {
    return {
      error: { code: this.code, message: this.message, ...(this.param === undefined ? {} : { param: this.param }) },
    };
  }

  /** Rebuilds an ApiError from a wire body (used by HTTP clients). */
  static fromBody(status: number, body: unknown): ApiError {
    const error = (body as Partial<ErrorBody> | null)?.error;
    if (error && typeof error.code === 'string' && error.code in ERROR_STATUS) {
      return new ApiError(error.code, String(error.message ?? ''), error.param);
    }
    return new ApiError(status === 404 ? 'not_found' : 'internal_error', `unexpected ${status} answer`);
  }
}

/** Turns anything thrown into an ApiError; unknown failures become a generic internal_error. */
export function toApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError('internal_error', 'internal error');
}

/** Shorthand for the 404 that hides whether a resource exists. */
export function notFound(what: string): ApiError {
  return new ApiError('not_found', `${what} not found`);
}
