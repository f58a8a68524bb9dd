import { internalAuthentication } from './authentication.js';
import { inject, injectable } from '../shared/di.js';
import { Clock } from '../ports/clock.js';
import { EventLog } from '../ports/event-log.js';
import { Random } from '../ports/random.js';
import type { StoreTransaction } from '../ports/store.js';
import { ServiceConfig } from '../shared/service-config.js';
import { toIso } from '../shared/time.js';
import { messageIdHeader, replyReferences, rfc5322Date, snippetOf } from './compose.js';
import { deliveryReport, type FailedRecipient } from './dsn.js';
import type { OutboundRecord, StoredAttachment } from './email.records.js';
import { Mailboxes } from './mailboxes.js';

/** A bounce whose bytes are stored, ready to be written in the outcome's transaction. */
export interface PreparedBounce {
  id: string;
  subject: string;
  text: string;
  headers: Record<string, string>;
  attachments: StoredAttachment[];
  nowMs: number;
}

/**
 * Writes delivery status notifications (RFC 3464) into senders' inboxes: from
 * `MAILER-DAEMON@<service_domain>`, in the thread of the message that failed (In-Reply-To and
 * References name it), with the `message/delivery-status` and `text/rfc822-headers` parts as
 * attachments, and an `email.received` event like any mail that arrives.
 */
@injectable()
export class BounceWriter {
  constructor(
    @inject(Clock) private readonly clock: Clock,
    @inject(Random) private readonly random: Random,
    @inject(EventLog) private readonly events: EventLog,
    @inject(ServiceConfig) private readonly config: ServiceConfig,
    @inject(Mailboxes) private readonly mailboxes: Mailboxes,
  ) {}

  /** Composes the bounce of `failures` and stores its parts' bytes (before the transaction that writes it). */
  async prepare(original: OutboundRecord, failures: readonly FailedRecipient[]): Promise<PreparedBounce> {
    const domain = this.config.serviceDomain;
    const report = deliveryReport({ serviceDomain: domain, arrivalMs: original.sent_ms, originalHeaders: original.headers, subject: original.subject, recipients: failures });
    const attachments = await this.mailboxes.storeAttachments([
      { filename: 'delivery-status.txt', content_type: 'message/delivery-status', content: new TextEncoder().encode(report.status) },
      { filename: 'original-headers.txt', content_type: 'text/rfc822-headers', content: new TextEncoder().encode(report.originalHeaders) },
    ]);
    const nowMs = this.clock.now();
    const id = this.random.id('message');
    const parent = original.headers['Message-ID'] ?? '';
    const headers: Record<string, string> = {
      'Message-ID': messageIdHeader(id, domain),
      Date: rfc5322Date(nowMs),
      From: `MAILER-DAEMON@${domain} (Mail Delivery System)`,
      To: original.from,
      Subject: report.subject,
      'MIME-Version': '1.0',
      'Content-Type': `multipart/report; report-type=delivery-status; boundary="${id}/${domain}"`,
      'Auto-Submitted': 'auto-replied',
      ...(parent ? { 'In-Reply-To': parent, References: replyReferences({ messageId: parent, references: original.headers.References, inReplyTo: original.headers['In-Reply-To'] }) } : {}),
    };
    return { id, subject: report.subject, text: report.text, headers, attachments, nowMs };
  }

  /** Writes a prepared bounce into the sender's inbox in `tx`; answers the ids written. */
  async write(tx: StoreTransaction, original: OutboundRecord, bounce: PreparedBounce): Promise<string[]> {
    const from = `MAILER-DAEMON@${this.config.serviceDomain}`;
    await this.mailboxes.registerMessageId(tx, bounce.headers['Message-ID']!, original.thread_id);
    await this.mailboxes.writeCopy(tx, {
      id: bounce.id,
      owner: original.owner,
      folder: 'inbox',
      thread_id: original.thread_id,
      from,
      to: [original.from],
      cc: [],
      bcc: [],
      subject: bounce.subject,
      text: bounce.text,
      html: null,
      headers: bounce.headers,
      attachments: bounce.attachments,
      snippet: snippetOf(bounce.text, null),
      received_at: toIso(bounce.nowMs),
      received_ms: bounce.nowMs,
      read: false,
      // Written by the service itself: it never crossed the internet.
      authentication: internalAuthentication(this.config.serviceDomain),
    });
    await this.events.append(tx, { type: 'email.received', agent_id: original.owner, data: { message_id: bounce.id, thread_id: original.thread_id, from, subject: bounce.subject } });
    return [bounce.id];
  }
}
