import { bindRoute, callerOf, type BoundRoute } from '../api/route.js';
import type { WebhookDeliveries } from './webhook-deliveries.js';
import type { WebhookService } from './webhook.service.js';
import { webhooksRoutes as routes, webhooksSimRoutes as simRoutes } from './webhooks.routes.js';

/** Binds the webhook routes (and the control plane's delivery list) to the services. */
export function webhooksHandlers(webhooks: WebhookService, deliveries: WebhookDeliveries): BoundRoute[] {
  return [
    bindRoute(routes.create, (context, { body }) => webhooks.create(callerOf(context), body)),
    bindRoute(routes.list, (context) => webhooks.list(callerOf(context))),
    bindRoute(routes.delete, (context, { params }) => webhooks.delete(callerOf(context), params.webhook_id)),
    bindRoute(simRoutes.webhookDeliveries, (_context, { query }) => deliveries.list(query)),
  ];
}
