import { inject, injectable } from '../shared/di.js';
import { BlobStore } from '../ports/blob-store.js';
import { EventLog } from '../ports/event-log.js';
import { MailTransport, type OutboundMail, type TransportOutcome } from '../ports/mail-transport.js';
import { Store, type StoreTransaction } from '../ports/store.js';
import { ServiceConfig } from '../shared/service-config.js';
import type { Outbox } from './email.schema.js';
import { OUTBOUND, outboxView, type OutboundRecord } from './email.records.js';
import { blobBytes } from '../services/blob-bytes.js';

/** Longest transport error kept on an outbound record. */
const ERROR_MAX = 500;

/**
 * Mail to addresses outside the service. The outbound record is written in the send's own
 * transaction (status `queued`); after commit it is handed to the mail transport, so a slow relay
 * never holds a book-keeping transaction; a second transaction records the outcome: `sent`
 * (event `email.outbound`) or `failed` (event `email.delivery_failed`, with the reason). Refused
 * recipients of a partly accepted message get `email.delivery_failed` too. There are no retries: a
 * failed message stays failed, visible in the outbox and the event log.
 */
@injectable()
export class OutboundDelivery {
  constructor(
    @inject(Store) private readonly store: Store,
    @inject(EventLog) private readonly events: EventLog,
    @inject(BlobStore) private readonly blobs: BlobStore,
    @inject(MailTransport) private readonly transport: MailTransport,
    @inject(ServiceConfig) private readonly config: ServiceConfig,
  ) {}

  /** Records an outbound message inside the sending transaction. */
  record(tx: StoreTransaction, record: OutboundRecord): void {
    tx.insert<OutboundRecord>(OUTBOUND, record.message_id, record);
  }

  /** Hands a recorded message to the transport (after commit) and records the outcome. */
  async handOff(record: OutboundRecord): Promise<void> {
    let outcome: TransportOutcome;
    let error: string | null = null;
    try {
      outcome = await this.transport.send(this.mailOf(record));
    } catch (failure) {
      outcome = { accepted: [], rejected: [...record.recipients], response: '' };
      error = (failure instanceof Error ? failure.message : String(failure)).slice(0, ERROR_MAX) || 'the transport failed';
    }
    const accepted = record.recipients.filter((address) => outcome.accepted.some((done) => done.toLowerCase() === address.toLowerCase()));
    const rejected = record.recipients.filter((address) => !accepted.includes(address));
    if (rejected.length > 0 && error === null) error = (outcome.response || 'recipients refused by the transport').slice(0, ERROR_MAX);
    await this.store.transaction((tx) => {
      const current = tx.get<OutboundRecord>(OUTBOUND, record.message_id);
      if (!current) return;
      const status = accepted.length > 0 ? 'sent' : 'failed';
      tx.update<OutboundRecord>(OUTBOUND, record.message_id, { ...current, status, accepted, rejected, error });
      if (accepted.length > 0) {
        this.events.append(tx, { type: 'email.outbound', agent_id: record.owner, data: { message_id: record.message_id, recipients: accepted } });
      }
      if (rejected.length > 0) {
        this.events.append(tx, {
          type: 'email.delivery_failed',
          agent_id: record.owner,
          data: { message_id: record.message_id, recipients: rejected, error: error ?? '' },
        });
      }
    });
  }

  /** Everything handed to the transport, oldest first (`GET /_sim/email/outbox`). */
  outbox(): Outbox {
    return { messages: this.store.view.all<OutboundRecord>(OUTBOUND).map((record) => outboxView(record, this.config.filesUrl)) };
  }

  private mailOf(record: OutboundRecord): OutboundMail {
    const blobs = this.blobs;
    return {
      messageId: record.headers['Message-ID'] ?? '',
      date: record.sent_ms,
      from: record.from,
      to: [...record.to],
      cc: [...record.cc],
      envelope: { from: record.from, to: [...record.recipients] },
      subject: record.subject,
      text: record.text,
      html: record.html,
      inReplyTo: record.headers['In-Reply-To'] ?? null,
      references: record.headers.References ?? null,
      attachments: record.attachments.map((attachment) => ({
        filename: attachment.filename,
        contentType: attachment.content_type,
        size: attachment.size,
        open: () => blobBytes(blobs, attachment.sha256),
      })),
    };
  }
}
