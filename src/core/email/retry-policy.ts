import type { ServiceIdentifier } from '../shared/di.js';
import { parseDuration } from '../shared/duration.js';

/**
 * When the outbound queue tries again, modelled on Postfix's defaults: the first retry after
 * `minimal_backoff_time` (300 s), each wait doubling up to `maximal_backoff_time` (4000 s), and a
 * message whose recipients still wait after `maximal_queue_lifetime` (5 days of service time) is
 * given up and bounced.
 */
export interface RetryPolicy {
  /** The first wait after a temporary failure, ms. */
  minimalBackoffMs: number;
  /** The longest wait between two attempts, ms. */
  maximalBackoffMs: number;
  /** How long after it was queued a message is given up, ms. */
  lifetimeMs: number;
}

/** Outbound queue settings of `RuntimeOptions.email.queue`, as durations (`300s`, `5m`, `5d`). */
export interface RetryOptions {
  minimalBackoff?: string;
  maximalBackoff?: string;
  lifetime?: string;
}

/** Postfix's defaults. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { minimalBackoffMs: 300_000, maximalBackoffMs: 4_000_000, lifetimeMs: 5 * 86_400_000 };

/**
 * The policy of the options, defaults for what they leave out.
 * @throws RangeError when a duration cannot be read or the backoffs are out of order
 */
export function retryPolicy(options: RetryOptions | undefined): RetryPolicy {
  const policy: RetryPolicy = {
    minimalBackoffMs: options?.minimalBackoff === undefined ? DEFAULT_RETRY_POLICY.minimalBackoffMs : parseDuration(options.minimalBackoff),
    maximalBackoffMs: options?.maximalBackoff === undefined ? DEFAULT_RETRY_POLICY.maximalBackoffMs : parseDuration(options.maximalBackoff),
    lifetimeMs: options?.lifetime === undefined ? DEFAULT_RETRY_POLICY.lifetimeMs : parseDuration(options.lifetime),
  };
  if (policy.minimalBackoffMs <= 0 || policy.maximalBackoffMs < policy.minimalBackoffMs) throw new RangeError('email queue: the minimal backoff must be positive and at most the maximal backoff');
  return policy;
}

/** The wait after failed attempt number `attempts` (1 = the first): doubling from the minimal backoff, capped. */
export function backoffMs(policy: RetryPolicy, attempts: number): number {
  const doubled = policy.minimalBackoffMs * 2 ** Math.min(Math.max(attempts - 1, 0), 30);
  return Math.min(doubled, policy.maximalBackoffMs);
}

/** Injection token of the outbound queue's {@link RetryPolicy}. */
export const RetryPolicy = Symbol.for('agent-services/EmailRetryPolicy') as ServiceIdentifier<RetryPolicy>;
