import { verifySignedPayload } from '../core/webhooks/signature.js';
import { DEFAULT_TOLERANCE_SECONDS } from '../core/webhooks/webhook-types.js';
import type { WebhookEvent } from '../core/webhooks/webhooks.schema.js';

/** Options of {@link verifyWebhook}. */
export interface VerifyWebhookOptions {
  /** Largest distance between the signature's time and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /**
   * The receiver's "now" (ms since the epoch, or a Date; default the wall clock). A simulated
   * world signs with its simulated clock: pass its time (`GET /_sim/clock`) when verifying those.
   */
  now?: number | Date;
}

/**
 * Verifies a webhook delivery for a receiver: the `Agent-Signature` header against the raw body
 * (the exact bytes received, before any JSON parsing) and the endpoint's `whsec_…` secret, with
 * a constant-time comparison and a timestamp tolerance. Answers the parsed event.
 * @throws WebhookVerificationError (`reason`: malformed_header, timestamp_out_of_tolerance,
 *   signature_mismatch); SyntaxError when a correctly signed body is not JSON
 */
export function verifyWebhook(secret: string, rawBody: string | Uint8Array, signatureHeader: string | null | undefined, options: VerifyWebhookOptions = {}): WebhookEvent {
  const nowMs = options.now === undefined ? Date.now() : typeof options.now === 'number' ? options.now : options.now.getTime();
  return verifySignedPayload(secret, rawBody, signatureHeader ?? '', options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS, Math.floor(nowMs / 1000)) as WebhookEvent;
}
