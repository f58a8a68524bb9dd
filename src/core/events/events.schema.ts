import { z } from 'zod';
import { BrowserSession, BrowserViewport } from '../browser/browser.schema.js';
import { RunBody } from '../compute/compute.schema.js';
import { EmailMessage } from '../email/email.schema.js';
import { FAULT_EFFECTS, FAULT_TARGETS } from '../faults/fault-targets.js';
import { FileObject } from '../memory/memory.schema.js';
import { Call, InboundSms, SmsMessage } from '../phone/phone.schema.js';
import { Fee, Invoice, InvoiceCurrency, PaymentMethod, TransactionStatus, WalletAsset, WalletNetwork, WalletTransaction } from '../wallet/wallet.schema.js';

/**
 * One event type, declared once: what it means, the schema of the `data` it carries and whether
 * webhook endpoints receive it. The event log's typed `append`, webhook delivery, `waitFor`, the
 * dashboard's filters and the OpenAPI document's `webhooks` section all read this catalog.
 */
export interface EventDeclaration<D = unknown, P = unknown> {
  /** One line: what happened. */
  summary: string;
  /** The event log's `data` (what `/_sim/events`, `waitFor` and the dashboard show); absent for a delivered-only type. */
  data?: z.ZodType<D>;
  /**
   * Delivered to webhooks with this `data`: the resource as the API returns it at that moment.
   * Equal to `data` when the log carries the resource itself; compact log events (ids and a few
   * fields) are expanded by `WebhookPayloads` when they are delivered.
   */
  webhook?: z.ZodType<P>;
}

/** Logged, never delivered. */
const logged = <D>(summary: string, data: z.ZodType<D>): { summary: string; data: z.ZodType<D> } => ({ summary, data });
/** Logged as the resource the API returns, and delivered as it is. */
const delivered = <D>(summary: string, data: z.ZodType<D>): { summary: string; data: z.ZodType<D>; webhook: z.ZodType<D> } => ({ summary, data, webhook: data });

/** `wallet.transaction.created`'s data: the new history record, compact. */
const TransactionCreated = z.object({
  transaction_id: z.string(),
  direction: z.enum(['in', 'out']),
  amount: z.string(),
  asset: WalletAsset,
  to: z.string(),
  from: z.string(),
  status: TransactionStatus,
  network: WalletNetwork.nullable(),
  fee: Fee,
  tx_hash: z.string().nullable().describe('transaction hash or bank reference of an outbound transfer'),
});

const CardCharge = { card_id: z.string(), amount: z.string(), merchant: z.string() };

/** Every event type of the one ordered log, and the delivered types (DECISIONS.md "Webhooks (every area)"). */
export const EVENTS = {
  'agent.created': logged('An agent was created.', z.object({ handle: z.string() })),
  'agent.updated': logged("An agent's profile changed; `fields` names what changed.", z.object({ fields: z.array(z.string()) })),
  'agent.suspended': logged('The operator suspended the agent: its keys answer 403 agent_suspended.', z.object({})),
  'agent.resumed': logged('The operator resumed a suspended agent.', z.object({})),
  'agent.key_created': logged('The operator made the agent a new API key (the old ones keep working for grace_seconds).', z.object({ key_prefix: z.string(), grace_seconds: z.number() })),
  'agent.key_revoked': logged("The operator revoked one of the agent's API keys.", z.object({ key_prefix: z.string() })),
  'credential.issued': logged('A verifiable credential was issued to the agent.', z.object({ credential_id: z.string(), type: z.literal('AgentIdentityCredential') })),

  'sms.status_changed': delivered('An outbound SMS was created or moved (queued, sent, delivered, failed).', SmsMessage),
  'sms.received': delivered('An SMS arrived on the agent’s number.', InboundSms),
  'call.status_changed': delivered('A call was placed or moved (ringing, in-progress, completed, failed).', Call),

  'email.sent': logged('The agent sent a message.', z.object({ message_id: z.string(), thread_id: z.string(), internal_recipients: z.int().min(0), external_recipients: z.int().min(0) })),
  'email.received': {
    summary: 'A message arrived in the agent’s inbox (from an agent, the internet or a bounce).',
    data: z.object({ message_id: z.string(), thread_id: z.string(), from: z.string(), subject: z.string() }),
    webhook: EmailMessage,
  },
  'email.read': logged('The agent opened a message for the first time.', z.object({ message_id: z.string() })),
  'email.outbound': logged('A relay accepted a message for these outside recipients.', z.object({ message_id: z.string(), recipients: z.array(z.string()) })),
  'email.delivery_failed': delivered(
    'Outside recipients refused a message, or its retries ran out; a bounce is in the inbox.',
    z.object({
      message_id: z.string(),
      thread_id: z.string(),
      recipients: z.array(z.string()),
      error: z.string(),
      failures: z.array(z.object({ address: z.string(), reason: z.enum(['refused', 'expired']), reply_code: z.int().nullable(), diagnostic: z.string() })),
      bounce_message_id: z.string().nullable(),
    }),
  ),

  'wallet.funded': logged('The control plane funded a wallet.', z.object({ transaction_id: z.string(), asset: WalletAsset, amount: z.string() })),
  'wallet.transaction.created': logged('A history record was written (either direction).', TransactionCreated),
  'wallet.transaction.updated': {
    summary: 'A pending transfer settled: confirmed, or failed with the amount returned.',
    data: z.object({
      transaction_id: z.string(),
      status: TransactionStatus,
      previous_status: TransactionStatus,
      tx_hash: z.string().nullable(),
      reason: z.string().optional(),
    }),
    webhook: WalletTransaction,
  },
  'wallet.transaction.received': {
    summary: 'Money arrived (funding, a book transfer, a paid invoice): delivered for every new `in` record, logged as `wallet.transaction.created`.',
    webhook: WalletTransaction,
  },
  'invoice.created': logged('An invoice was created.', z.object({ invoice_id: z.string(), to: z.string(), amount: z.string(), currency: InvoiceCurrency })),
  'invoice.paid': {
    summary: 'An invoice was paid through its hosted page.',
    data: z.object({ invoice_id: z.string(), transaction_id: z.string(), method: PaymentMethod, amount: z.string(), currency: InvoiceCurrency }),
    webhook: Invoice,
  },
  'card.created': logged('A virtual card was issued.', z.object({ card_id: z.string(), last4: z.string(), limit: z.string() })),
  'card.charge.approved': logged('A merchant charged a card.', z.object({ ...CardCharge, transaction_id: z.string() })),
  'card.details_shown': logged("A new card's full details were shown once on the dashboard and forgotten.", z.object({ card_id: z.string() })),
  'card.charge.declined': logged('A card charge was declined.', z.object({ ...CardCharge, decline_reason: z.enum(['spending_limit', 'insufficient_funds', 'policy']) })),

  'memory.created': logged('A memory was stored.', z.object({ memory_id: z.string() })),
  'memory.deleted': logged('A memory was deleted.', z.object({ memory_id: z.string() })),
  'file.uploaded': logged('A file was uploaded to the drive.', z.object({ file_id: z.string(), name: z.string(), size: z.int().min(0) })),
  'file.indexed': {
    summary: 'An uploaded document was split into chunks and indexed for search.',
    data: z.object({ file_id: z.string(), chunks: z.int().min(1) }),
    webhook: FileObject,
  },

  'compute.run.completed': logged('A code run finished (its measured duration stays out of the log).', z.object({ runtime: RunBody.shape.runtime, exit_code: z.int() })),
  'browser.session.created': logged('A browser session opened.', z.object({ session_id: z.string(), url: z.string().nullable(), viewport: BrowserViewport })),
  'browser.session.terminated': delivered('A browser session ended (closed, idle, crashed, restart).', BrowserSession),
  'policy.updated': logged("The operator set or replaced the agent's policy.", z.object({ policy: z.record(z.string(), z.unknown()) })),
  'policy.removed': logged("The operator removed the agent's policy.", z.object({})),
  'policy.violated': delivered("A request broke its agent's policy and was refused: nothing was stored, sent or debited.", z.object({ rule: z.string(), route_id: z.string(), param: z.string().nullable() })),

  'webhook.created': logged('The agent registered a webhook endpoint.', z.object({ webhook_id: z.string(), url: z.string(), events: z.array(z.string()) })),
  'webhook.deleted': logged('The agent deleted a webhook endpoint.', z.object({ webhook_id: z.string() })),
  'fault.injected': logged(
    'An injected fault struck an operation.',
    z.object({
      fault_id: z.string(),
      target: z.enum(FAULT_TARGETS),
      effect: z.enum(FAULT_EFFECTS),
      operation: z.record(z.string(), z.unknown()),
      delay_seconds: z.number().optional(),
      error_code: z.string().optional(),
    }),
  ),
} satisfies Record<string, EventDeclaration>;

type Catalog = typeof EVENTS;

/** Every declared event type. */
export type EventType = keyof Catalog;
/** The types the event log holds (every type but the delivered-only ones). */
export type LoggedEventType = { [T in EventType]: Catalog[T] extends { data: z.ZodType } ? T : never }[EventType];
/** The types delivered to webhooks. */
export type WebhookEventType = { [T in EventType]: Catalog[T] extends { webhook: z.ZodType } ? T : never }[EventType];

/** The `data` of a logged event of type `T`. */
export type EventData<T extends LoggedEventType> = Catalog[T] extends { data: z.ZodType<infer D> } ? D : never;
/** The `data` a webhook delivery of type `T` carries. */
export type WebhookData<T extends WebhookEventType> = Catalog[T] extends { webhook: z.ZodType<infer P> } ? P : never;

const TYPES = Object.keys(EVENTS) as EventType[];
const declaration = (type: EventType): EventDeclaration => EVENTS[type];

/** Every declared event type, in catalog order. */
export const EVENT_TYPES: readonly EventType[] = TYPES;
/** The types the event log holds, in catalog order. */
export const LOGGED_EVENT_TYPES = TYPES.filter((type) => declaration(type).data !== undefined) as readonly LoggedEventType[];
/** The delivered types, in catalog order. */
export const WEBHOOK_EVENT_TYPES = TYPES.filter((type) => declaration(type).webhook !== undefined) as readonly WebhookEventType[];

/** Whether `type` is a declared event type. */
export function isEventType(type: string): type is EventType {
  return Object.hasOwn(EVENTS, type);
}

/** Whether `type` is a delivered event type. */
export function isWebhookEventType(type: string): type is WebhookEventType {
  return isEventType(type) && declaration(type).webhook !== undefined;
}

/** The schema of a logged type's `data` (undefined for a type the catalog does not log). */
export function eventDataSchema(type: string): z.ZodType | undefined {
  return isEventType(type) ? declaration(type).data : undefined;
}

/** The schema of a delivered type's payload `data`. */
export function webhookDataSchema(type: WebhookEventType): z.ZodType {
  return declaration(type).webhook!;
}
