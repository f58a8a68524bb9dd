import { AddressResolver } from '../../core/ports/address-resolver.js';
import { EventLog } from '../../core/ports/event-log.js';
import { Scheduler } from '../../core/services/scheduler.js';
import { UrlGuard } from '../../core/webhooks/url-guard.js';
import { WebhookConfig, webhookConfig } from '../../core/webhooks/webhook-config.js';
import { WebhookDeliveries } from '../../core/webhooks/webhook-deliveries.js';
import { WebhookPayloads } from '../../core/webhooks/webhook-payloads.js';
import { WebhookService } from '../../core/webhooks/webhook.service.js';
import { DELIVERY_JOB } from '../../core/webhooks/webhook-types.js';
import { parseDuration } from '../../core/shared/duration.js';
import { webhooksHandlers } from '../../core/webhooks/webhooks.handlers.js';
import { DnsAddressResolver } from '../../providers/net/dns-address-resolver.js';
import { webhooksRoutes, webhooksSimRoutes } from '../../core/webhooks/webhooks.routes.js';
import { defineArea } from './area-module.js';

/**
 * Webhooks: agents' endpoints and the runtime's, signed deliveries of every area's events with
 * retries on the clock. Composed after the areas whose events it reads (wallet, email, memory).
 */
export const webhooksArea = defineArea({
  name: 'webhooks',
  routes: webhooksRoutes,
  simRoutes: webhooksSimRoutes,
  bind({ container, options, mode }) {
    // Deliveries follow the event log's retention (createRuntime has checked the duration).
    const retentionMs = options.eventRetention === undefined ? null : parseDuration(options.eventRetention);
    container.bind(WebhookConfig).toConstantValue(webhookConfig(options.webhooks, options.webhookOptions, mode, retentionMs));
    container.bind(AddressResolver).toConstantValue(options.providers?.addressResolver ?? new DnsAddressResolver());
    container.bind(UrlGuard).toSelf();
    container.bind(WebhookPayloads).toSelf();
    container.bind(WebhookService).toSelf();
    container.bind(WebhookDeliveries).toSelf();
  },
  start({ container }) {
    const deliveries = container.get(WebhookDeliveries);
    container.get(Scheduler).handle(DELIVERY_JOB, (data) => deliveries.run(data));
    container.get(EventLog).onAppend((tx, event) => deliveries.enqueue(tx, event));
    return webhooksHandlers(container.get(WebhookService), deliveries);
  },
  restored({ container }) {
    container.get(WebhookDeliveries).restored();
  },
  async stop({ container }) {
    // Attempts in flight end by their own timeout; their outcomes are no longer recorded.
    container.get(WebhookDeliveries).stop();
  },
});
