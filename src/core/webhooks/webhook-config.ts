import type { ServiceIdentifier } from '../shared/di.js';
import { sha256Hex } from '../shared/json.js';
import { DEFAULT_DELIVERY_TIMEOUT_MS, isWebhookEventType } from './webhook-types.js';

/** An endpoint configured on the runtime: it receives every agent's events. */
export interface RuntimeWebhookOption {
  url: string;
  /** The HMAC key (conventionally `whsec_…`); the whole string is the key. */
  secret: string;
  /** Event types, or `["*"]` (default). */
  events?: string[];
}

/** Delivery settings of `createRuntime({ webhookOptions })`. */
export interface WebhookOptions {
  /** How long a receiver has to answer one attempt, in ms of real time (default 10,000). */
  timeoutMs?: number;
  /**
   * Live mode only: let agents register urls that resolve to loopback, private or link-local
   * addresses (default false; simulated worlds always allow them).
   */
  allowPrivateUrls?: boolean;
  /** Most attempts in flight at once; further attempts wait for a free slot (default 32). */
  concurrency?: number;
}

/** Default of {@link WebhookOptions.concurrency}: a burst of events never opens thousands of sockets. */
export const DEFAULT_CONCURRENCY = 32;

/** A runtime endpoint with its stable id. */
export interface RuntimeEndpoint {
  webhook_id: string;
  url: string;
  secret: string;
  events: string[];
}

/** The resolved webhook configuration of one runtime. */
export interface WebhookConfig {
  readonly endpoints: readonly RuntimeEndpoint[];
  readonly timeoutMs: number;
  /** Most attempts in flight at once. */
  readonly concurrency: number;
  /** Refuse (at registration and before each attempt) agent urls that lead to private addresses. */
  readonly guardPrivateUrls: boolean;
  /**
   * The event retention (ms of service time), or null to keep everything: settled deliveries whose
   * first attempt is older are removed as new ones are written, with the bodies they sent.
   */
  readonly retentionMs: number | null;
}

/** Injection token of {@link WebhookConfig}. */
export const WebhookConfig = Symbol.for('agent-services/WebhookConfig') as ServiceIdentifier<WebhookConfig>;

/**
 * The id of a runtime endpoint: derived from its url, so it stays the same across restarts (pending
 * retries find their endpoint again) whatever the order of the configured list.
 */
export function runtimeWebhookId(url: string): string {
  return `wh_rt_${sha256Hex(url).slice(0, 20)}`;
}

/**
 * Resolves webhook options.
 * @throws RangeError on a url that is not http(s), an empty secret, an unknown event type, a url
 *   listed twice, or a timeout or concurrency that is not a positive integer
 */
export function webhookConfig(endpoints: readonly RuntimeWebhookOption[] = [], options: WebhookOptions = {}, mode: 'simulated' | 'live' = 'simulated', retentionMs: number | null = null): WebhookConfig {
  const seen = new Set<string>();
  const resolved = endpoints.map((endpoint, index): RuntimeEndpoint => {
    let protocol = '';
    try {
      protocol = new URL(endpoint.url).protocol;
    } catch {
      // reported below
    }
    if (protocol !== 'http:' && protocol !== 'https:') throw new RangeError(`webhooks[${index}].url must be an http or https URL`);
    if (typeof endpoint.secret !== 'string' || endpoint.secret.length === 0) throw new RangeError(`webhooks[${index}].secret must be a non-empty string`);
    const events = endpoint.events ?? ['*'];
    for (const type of events) if (type !== '*' && !isWebhookEventType(type)) throw new RangeError(`webhooks[${index}].events: unknown event type ${type}`);
    if (seen.has(endpoint.url)) throw new RangeError(`webhooks[${index}].url is listed twice`);
    seen.add(endpoint.url);
    return { webhook_id: runtimeWebhookId(endpoint.url), url: endpoint.url, secret: endpoint.secret, events: normaliseEvents(events) };
  });
  const timeoutMs = options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) throw new RangeError('webhookOptions.timeoutMs must be a positive integer');
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isSafeInteger(concurrency) || concurrency <= 0) throw new RangeError('webhookOptions.concurrency must be a positive integer');
  return { endpoints: resolved, timeoutMs, concurrency, guardPrivateUrls: mode === 'live' && options.allowPrivateUrls !== true, retentionMs };
}

/** In the given order, without duplicates; `*` swallows every other type. */
export function normaliseEvents(events: readonly string[]): string[] {
  if (events.includes('*')) return ['*'];
  return [...new Set(events)];
}

/**
 * Reads the CLI's `--webhook URL=SECRET` (split at the last `=`, so a url may carry a query).
 * @throws RangeError when there is no `=`, or the url or secret is empty
 */
export function parseWebhookFlag(flag: string): RuntimeWebhookOption {
  const eq = flag.lastIndexOf('=');
  if (eq <= 0 || eq === flag.length - 1) throw new RangeError(`--webhook expects URL=SECRET, got "${flag}"`);
  return { url: flag.slice(0, eq), secret: flag.slice(eq + 1) };
}
