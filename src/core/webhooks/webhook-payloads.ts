import { inject, injectable } from '../shared/di.js';
import type { AppendedEvent } from '../ports/event-log.js';
import type { StoreView } from '../ports/store.js';
import { ServiceConfig } from '../shared/service-config.js';
import { MESSAGES, messageView, ownedKey, type StoredMessage } from '../email/email.records.js';
import { DriveService } from '../memory/drive.service.js';
import { InvoiceService } from '../wallet/invoice.service.js';
import { Ledger, toWire } from '../wallet/ledger.js';
import { isWebhookEventType, type WebhookEventType } from './webhook-types.js';

/** What one event-log entry becomes for receivers: a delivered type and the resource as the API shows it. */
export interface WebhookPayload {
  type: WebhookEventType;
  data: unknown;
}

/**
 * Whether an event could have a payload at all, known from the event alone: a new wallet record is
 * delivered only as money received (an `in` record that is not pending, of an agent); every other
 * type the caller already knows to be deliverable is. The deliveries ask before they read anything,
 * so the `out` record of every send costs no read of the agent's endpoints.
 */
export function mayDeliver(event: AppendedEvent): boolean {
  if (event.type !== 'wallet.transaction.created') return true;
  // A new `in` record (funding, a book transfer, a paid invoice) is money received; `out`
  // records are the agent's own sends, answered to it already.
  // A chain deposit is created `pending` when first seen: it is received when it confirms.
  return event.data.direction === 'in' && event.data.status !== 'pending' && event.agent_id !== null;
}

/**
 * Turns event-log entries into webhook payloads. Wallet, email and memory log compact events
 * (ids and a few fields); the resource they name is read here, in the appending transaction, so
 * `data` is the resource exactly as the API answered it at that moment (a message that is later
 * opened is still delivered with `read: false`). Areas that log API-shaped data under a delivered
 * type (phone, browser sessions) pass through unchanged.
 */
@injectable()
export class WebhookPayloads {
  constructor(
    @inject(Ledger) private readonly ledger: Ledger,
    @inject(InvoiceService) private readonly invoices: InvoiceService,
    @inject(DriveService) private readonly drive: DriveService,
    @inject(ServiceConfig) private readonly config: ServiceConfig,
  ) {}

  /** The payload of an event, read in `view`; undefined for events receivers never get. */
  async payloadOf(view: StoreView, event: AppendedEvent): Promise<WebhookPayload | undefined> {
    const agentId = event.agent_id;
    const data = event.data;
    switch (event.type) {
      case 'wallet.transaction.created': {
        if (!mayDeliver(event) || agentId === null) return undefined;
        return this.transaction(view, agentId, data.transaction_id, 'wallet.transaction.received');
      }
      case 'wallet.transaction.updated': {
        if (agentId === null) return undefined;
        // The one update that credits a deposit is delivered as money received (DECISIONS.md, Real chains).
        const credited = data.status === 'confirmed' && (await this.ledger.find(view, agentId, String(data.transaction_id)))?.direction === 'in';
        return this.transaction(view, agentId, data.transaction_id, credited ? 'wallet.transaction.received' : 'wallet.transaction.updated');
      }
      case 'invoice.paid': {
        const invoice = typeof data.invoice_id === 'string' ? await this.invoices.wireOf(view, data.invoice_id) : undefined;
        return invoice && { type: 'invoice.paid', data: invoice };
      }
      case 'email.received': {
        if (agentId === null || typeof data.message_id !== 'string') return undefined;
        const message = await view.get<StoredMessage>(MESSAGES, ownedKey(agentId, data.message_id));
        return message && { type: 'email.received', data: messageView(message, this.config.filesUrl) };
      }
      case 'file.indexed': {
        const file = typeof data.file_id === 'string' ? await this.drive.fileOf(view, data.file_id) : undefined;
        return file && { type: 'file.indexed', data: file };
      }
      default:
        return isWebhookEventType(event.type) ? { type: event.type, data } : undefined;
    }
  }

  private async transaction(view: StoreView, agentId: string, transactionId: unknown, type: WebhookEventType): Promise<WebhookPayload | undefined> {
    const record = typeof transactionId === 'string' ? await this.ledger.find(view, agentId, transactionId) : undefined;
    return record && { type, data: toWire(record) };
  }
}
