import { defineRoute } from '../api/route.js';
import { CreateWebhookBody, CreatedWebhook, DeliveriesQuery, DeliveryList, WebhookList, WebhookParams } from './webhooks.schema.js';

/** The webhook endpoints of DECISIONS.md ("Webhooks (every area)"). */
export const webhooksRoutes = {
  /** Registers an endpoint for the agent's events; the whsec_ signing secret is shown only in this answer. `POST /v1/webhooks` */
  create: defineRoute({
    id: 'webhooks.create',
    method: 'POST',
    path: '/v1/webhooks',
    auth: 'agent',
    tag: 'webhooks',
    status: 201,
    summary: "Registers an endpoint for the agent's events; the whsec_ signing secret is shown only in this answer.",
    body: CreateWebhookBody,
    response: CreatedWebhook,
  }),
  /** The agent's endpoints, newest first, without secrets. `GET /v1/webhooks` */
  list: defineRoute({
    id: 'webhooks.list',
    method: 'GET',
    path: '/v1/webhooks',
    auth: 'agent',
    tag: 'webhooks',
    status: 200,
    summary: "The agent's endpoints, newest first, without secrets.",
    response: WebhookList,
  }),
  /** Deletes an endpoint; its pending deliveries end failed. `DELETE /v1/webhooks/{webhook_id}` */
  delete: defineRoute({
    id: 'webhooks.delete',
    method: 'DELETE',
    path: '/v1/webhooks/{webhook_id}',
    auth: 'agent',
    tag: 'webhooks',
    status: 204,
    summary: 'Deletes an endpoint; its pending deliveries end failed.',
    params: WebhookParams,
  }),
};

/** The webhook routes of the simulation control plane. */
export const webhooksSimRoutes = {
  /** Every delivery of every endpoint, newest first, filtered by webhook_id and status. `GET /_sim/webhooks/deliveries` */
  webhookDeliveries: defineRoute({
    id: 'sim.webhookDeliveries',
    method: 'GET',
    path: '/_sim/webhooks/deliveries',
    auth: 'admin',
    tag: 'simulation',
    status: 200,
    summary: 'Every delivery of every endpoint, newest first, filtered by webhook_id and status.',
    query: DeliveriesQuery,
    response: DeliveryList,
  }),
};
