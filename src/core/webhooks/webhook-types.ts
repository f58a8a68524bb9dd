import { z } from 'zod';
import { defineJob } from '../services/job-type.js';

/** The delivered event types and their guard come from the one event catalog. */
export { WEBHOOK_EVENT_TYPES, isWebhookEventType, type WebhookEventType } from '../events/events.schema.js';

/** Retries after the first attempt, in seconds of service time counted from the first attempt. */
export const RETRY_OFFSETS_SECONDS = [60, 300, 1_800, 7_200, 28_800, 86_400] as const;

/** The first attempt and its six retries. */
export const MAX_ATTEMPTS = RETRY_OFFSETS_SECONDS.length + 1;

/** How long a receiver has to answer one attempt, in milliseconds of real time. */
export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;

/** Receivers accept signatures at most this many seconds away from their clock. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Job type of a delivery attempt (a retry, or the final check after the last attempt): attempts count from 1, the first runs without a job. */
export const DELIVERY_JOB = defineJob('webhooks.deliver', z.object({ delivery_id: z.string(), attempt: z.int().min(2) }));

/** Prefix of every signing secret. */
export const SECRET_PREFIX = 'whsec_';
