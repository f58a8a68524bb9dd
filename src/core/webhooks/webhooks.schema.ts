import { z } from 'zod';
import { httpUrl, intParam, timestamp } from '../shared/schemas.js';
import { WEBHOOK_EVENT_TYPES } from './webhook-types.js';

/** A webhook url: http or https, at most 2,048 characters. */
export const WebhookUrl = httpUrl;

/**
 * Body of `POST /v1/webhooks`; `events` is checked against the delivered types by the service (its
 * message lists them). The document states the same rule: `"*"` or delivered types.
 */
export const CreateWebhookBody = z.strictObject({
  url: WebhookUrl,
  events: z
    .array(
      z
        .string()
        .max(100)
        .meta({ enum: ['*', ...WEBHOOK_EVENT_TYPES] }),
    )
    .min(1)
    .max(20)
    .optional()
    .describe('"*" (every type, the default) or delivered event types'),
});
export type CreateWebhookBody = z.infer<typeof CreateWebhookBody>;

/** A registered endpoint as `GET /v1/webhooks` lists it (no secret). */
export const Webhook = z.object({
  webhook_id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  created_at: timestamp,
});
export type Webhook = z.infer<typeof Webhook>;

/** Answer of `POST /v1/webhooks`: the only time the signing secret is shown. */
export const CreatedWebhook = Webhook.extend({ secret: z.string().describe('whsec_… signing secret, shown only here') });
export type CreatedWebhook = z.infer<typeof CreatedWebhook>;

/** Answer of `GET /v1/webhooks`: newest first. */
export const WebhookList = z.object({ webhooks: z.array(Webhook) });
export type WebhookList = z.infer<typeof WebhookList>;

/** Path of `DELETE /v1/webhooks/{webhook_id}`. */
export const WebhookParams = z.strictObject({ webhook_id: z.string().min(1).max(100) });
export type WebhookParams = z.infer<typeof WebhookParams>;

/** Status of one delivery. */
export const DeliveryStatus = z.enum(['pending', 'delivered', 'failed']);
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;

/** Query of `GET /_sim/webhooks/deliveries`. */
export const DeliveriesQuery = z.strictObject({
  webhook_id: z.string().min(1).max(100).optional(),
  status: DeliveryStatus.optional(),
  limit: intParam(1, 100).default(20),
  cursor: z.string().min(1).optional(),
});
export type DeliveriesQuery = z.infer<typeof DeliveriesQuery>;

/** One event's delivery to one endpoint. */
export const WebhookDelivery = z.object({
  delivery_id: z.string(),
  webhook_id: z.string(),
  event_id: z.string(),
  type: z.string(),
  url: z.string(),
  attempts: z.number().int(),
  status: DeliveryStatus,
  last_response_status: z.number().int().nullable(),
  next_attempt_at: timestamp.nullable(),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

/** Answer of `GET /_sim/webhooks/deliveries`: newest first. */
export const DeliveryList = z.object({ deliveries: z.array(WebhookDelivery), next_cursor: z.string().nullable() });
export type DeliveryList = z.infer<typeof DeliveryList>;

/** What a receiver gets: the body of every delivery of one event. */
export interface WebhookEvent {
  id: string;
  type: string;
  created_at: string;
  agent_id: string | null;
  data: unknown;
}
