import { inject, injectable } from '../shared/di.js';
import { Clock } from '../ports/clock.js';
import { EventLog } from '../ports/event-log.js';
import { Random } from '../ports/random.js';
import { Store, type StoreView } from '../ports/store.js';
import { ApiError, notFound } from '../shared/api-error.js';
import { toIso } from '../shared/time.js';
import { WebhookConfig, normaliseEvents } from './webhook-config.js';
import { SECRET_PREFIX, WEBHOOK_EVENT_TYPES, isWebhookEventType } from './webhook-types.js';
import type { CreateWebhookBody, CreatedWebhook, Webhook, WebhookList } from './webhooks.schema.js';
import { UrlGuard } from './url-guard.js';

/** Collection of agents' endpoints, partitioned by owning agent. */
export const WEBHOOKS = 'webhooks';
/** Most endpoints one agent may register (GET /v1/webhooks answers them all, unpaged). */
export const MAX_WEBHOOKS_PER_AGENT = 20;

/** An agent's endpoint as stored (the secret stays inside the service). */
export interface StoredWebhook extends Webhook {
  agent_id: string;
  secret: string;
}

/** Where and how to deliver: an agent's endpoint or one configured on the runtime. */
export interface Endpoint {
  webhook_id: string;
  url: string;
  secret: string;
  events: readonly string[];
  /** The owning agent; null for runtime endpoints (which get every agent's events). */
  owner: string | null;
}

/**
 * Agents' webhook endpoints: register (the signing secret is shown once), list, delete; and the
 * endpoints an event of an agent goes to (the agent's own and the runtime's).
 */
@injectable()
export class WebhookService {
  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    @inject(Random) private readonly random: Random,
    @inject(EventLog) private readonly events: EventLog,
    @inject(WebhookConfig) private readonly config: WebhookConfig,
    @inject(UrlGuard) private readonly guard: UrlGuard,
  ) {}

  /**
   * Registers an endpoint of the calling agent.
   * @throws ApiError 400 invalid_request (param `events`: unknown type or empty list; param `url`:
   *   a private address in live mode; or the agent already has the most endpoints allowed)
   */
  async create(agentId: string, body: CreateWebhookBody): Promise<CreatedWebhook> {
    const requested = body.events ?? ['*'];
    const unknown = requested.find((type) => type !== '*' && !isWebhookEventType(type));
    if (unknown !== undefined) {
      throw new ApiError('invalid_request', `events: expected "*" or event types among ${WEBHOOK_EVENT_TYPES.join(', ')}, got "${unknown}"`, 'events');
    }
    if (this.config.guardPrivateUrls) await this.guard.check(body.url);
    const stored = await this.store.transaction(async (tx) => {
      if ((await tx.count(WEBHOOKS, agentId)) >= MAX_WEBHOOKS_PER_AGENT) {
        throw new ApiError('invalid_request', `an agent may register at most ${MAX_WEBHOOKS_PER_AGENT} webhooks; delete one first`);
      }
      const webhook: StoredWebhook = {
        webhook_id: this.random.id('webhook'),
        url: body.url,
        events: normaliseEvents(requested),
        created_at: toIso(this.clock.now()),
        agent_id: agentId,
        secret: `${SECRET_PREFIX}${this.random.secret(32)}`,
      };
      await tx.insert(WEBHOOKS, webhook.webhook_id, webhook, agentId);
      await this.events.append(tx, { type: 'webhook.created', agent_id: agentId, data: { webhook_id: webhook.webhook_id, url: webhook.url, events: webhook.events } });
      return webhook;
    });
    return { ...toWire(stored), secret: stored.secret };
  }

  /** The calling agent's endpoints, newest first (the service's order for lists), without secrets. */
  async list(agentId: string): Promise<WebhookList> {
    const page = await this.store.view.page<StoredWebhook>(WEBHOOKS, { partition: agentId, limit: MAX_WEBHOOKS_PER_AGENT });
    return { webhooks: page.items.map((item) => toWire(item.record)) };
  }

  /** Deletes one of the calling agent's endpoints; its pending deliveries end `failed` at their next attempt. @throws ApiError 404 not_found */
  async delete(agentId: string, webhookId: string): Promise<void> {
    await this.store.transaction(async (tx) => {
      const webhook = await tx.get<StoredWebhook>(WEBHOOKS, webhookId);
      if (!webhook || webhook.agent_id !== agentId) throw notFound('webhook');
      await tx.remove(WEBHOOKS, webhookId);
      await this.events.append(tx, { type: 'webhook.deleted', agent_id: agentId, data: { webhook_id: webhookId } });
    });
  }

  /**
   * Whether any endpoint (the agent's own, or one configured for every agent) could take an event
   * of `agentId`: answered at once when no store read is needed, else the number of the agent's
   * own endpoints, as read (the event-log hook of every append: the caller's one step follows it).
   */
  anyFor(view: StoreView, agentId: string | null): boolean | Promise<number> {
    if (this.config.endpoints.length > 0) return true;
    if (agentId === null) return false;
    return view.count(WEBHOOKS, agentId);
  }

  /** The endpoints that want an event of `type` of agent `agentId` (null: no agent), read in `view`. */
  async endpointsFor(view: StoreView, agentId: string | null, type: string): Promise<Endpoint[]> {
    const wants = (events: readonly string[]) => events[0] === '*' || events.includes(type);
    const found: Endpoint[] = [];
    if (agentId !== null && (await view.count(WEBHOOKS, agentId)) > 0) {
      const page = await view.page<StoredWebhook>(WEBHOOKS, { partition: agentId, limit: MAX_WEBHOOKS_PER_AGENT });
      for (const { record } of [...page.items].reverse()) {
        if (wants(record.events)) found.push({ webhook_id: record.webhook_id, url: record.url, secret: record.secret, events: record.events, owner: agentId });
      }
    }
    for (const endpoint of this.config.endpoints) if (wants(endpoint.events)) found.push({ ...endpoint, owner: null });
    return found;
  }

  /** An endpoint by id as it is now (agent or runtime), or undefined once deleted or unconfigured. */
  async endpoint(view: StoreView, webhookId: string): Promise<Endpoint | undefined> {
    const stored = await view.get<StoredWebhook>(WEBHOOKS, webhookId);
    if (stored) return { webhook_id: stored.webhook_id, url: stored.url, secret: stored.secret, events: stored.events, owner: stored.agent_id };
    const configured = this.config.endpoints.find((endpoint) => endpoint.webhook_id === webhookId);
    return configured && { ...configured, owner: null };
  }

  /** Whether urls of agents' endpoints must be checked against private addresses (live mode). */
  get guardsUrls(): boolean {
    return this.config.guardPrivateUrls;
  }
}

function toWire(webhook: StoredWebhook): Webhook {
  return { webhook_id: webhook.webhook_id, url: webhook.url, events: [...webhook.events], created_at: webhook.created_at };
}
