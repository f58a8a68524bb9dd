import { inject, injectable } from '../shared/di.js';
import { BlobStore } from '../ports/blob-store.js';
import { Clock } from '../ports/clock.js';
import { EventLog } from '../ports/event-log.js';
import { Random } from '../ports/random.js';
import { Store } from '../ports/store.js';
import type { BinaryBody } from '../api/binary.js';
import { IdentityService, type AgentRecord } from '../identity/identity.service.js';
import { ApiError, notFound } from '../shared/api-error.js';
import { ServiceConfig } from '../shared/service-config.js';
import { toIso } from '../shared/time.js';
import { isValidAddress } from './address.js';
import { messageIdHeader, replyReferences, replySubject, rfc5322Date, snippetOf } from './compose.js';
import type { AttachmentInput, EmailList, EmailMessage, ListEmailQuery, ReplyEmailBody, SendEmailBody, SentEmail } from './email.schema.js';
import { MESSAGES, messageView, ownedKey, type OutboundRecord, type StoredMessage } from './email.records.js';
import { composedHeaders } from './headers.js';
import { Mailboxes } from './mailboxes.js';
import { OutboundDelivery } from './outbound.js';
import { blobBytes } from '../services/blob-bytes.js';

/** A message an agent is about to send, after validation. */
interface Draft extends Pick<StoredMessage, 'to' | 'cc' | 'bcc' | 'subject' | 'text' | 'html'> {
  attachments: readonly AttachmentInput[];
  /** Set for replies: the thread joined and the threading headers. */
  threadId?: string;
  inReplyTo?: string;
  references?: string;
  /** Whether validation faults name the field (`to.1`); replies derive recipients, so they do not. */
  paramsNameFields: boolean;
}

/**
 * The email endpoints of SPEC.md for agents: send, list, read (marks read), reply with threading,
 * and attachment downloads. Mail between agents goes straight into the recipients' inboxes; mail
 * for anyone else goes through {@link OutboundDelivery}. The sender is always the agent's own
 * address.
 */
@injectable()
export class EmailService {
  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    @inject(Random) private readonly random: Random,
    @inject(EventLog) private readonly events: EventLog,
    @inject(BlobStore) private readonly blobs: BlobStore,
    @inject(ServiceConfig) private readonly config: ServiceConfig,
    @inject(IdentityService) private readonly identity: IdentityService,
    @inject(Mailboxes) private readonly mailboxes: Mailboxes,
    @inject(OutboundDelivery) private readonly outbound: OutboundDelivery,
  ) {}

  /**
   * Sends a message from the agent's own address.
   * @throws ApiError 404 recipient_not_found (an address of the service with no agent, param `to.N`)
   */
  async send(agentId: string, body: SendEmailBody): Promise<SentEmail> {
    return this.dispatch(await this.identity.agent(agentId), {
      to: body.to,
      cc: body.cc ?? [],
      bcc: body.bcc ?? [],
      subject: body.subject,
      text: body.text ?? null,
      html: body.html ?? null,
      attachments: body.attachments ?? [],
      paramsNameFields: true,
    });
  }

  /**
   * Replies in the message's thread: to its sender, or, for the agent's own sent mail, to its `to`.
   * @throws ApiError 404 not_found (no such message of this agent), 400 invalid_request (no one to reply to)
   */
  async reply(agentId: string, messageId: string, body: ReplyEmailBody): Promise<SentEmail> {
    const original = await this.mailboxes.copy(this.store.view, agentId, messageId);
    if (!original) throw notFound('message');
    const to = original.folder === 'sent' ? original.to : [original.from];
    if (to.length === 0 || !to.every(isValidAddress)) throw new ApiError('invalid_request', 'the message has no sender address that a reply can go to');
    const parentId = original.headers['Message-ID'] ?? '';
    return this.dispatch(await this.identity.agent(agentId), {
      to,
      cc: [],
      bcc: [],
      subject: replySubject(original.subject),
      text: body.text ?? null,
      html: body.html ?? null,
      attachments: body.attachments ?? [],
      threadId: original.thread_id,
      ...(parentId ? { inReplyTo: parentId, references: replyReferences({ messageId: parentId, references: original.headers.References, inReplyTo: original.headers['In-Reply-To'] }) } : {}),
      paramsNameFields: false,
    });
  }

  /** A newest-first page of one folder. @throws ApiError 400 invalid_request (cursor, since) */
  list(agentId: string, query: ListEmailQuery): Promise<EmailList> {
    return this.mailboxes.page(agentId, query);
  }

  /** The agent's copy of a message; opening it marks it read. @throws ApiError 404 not_found */
  async get(agentId: string, messageId: string): Promise<EmailMessage> {
    const found = await this.mailboxes.copy(this.store.view, agentId, messageId);
    if (!found) throw notFound('message');
    if (found.read) return messageView(found, this.config.filesUrl);
    const read = await this.store.transaction(async (tx) => {
      const current = (await this.mailboxes.copy(tx, agentId, messageId))!;
      if (current.read) return current;
      const next: StoredMessage = { ...current, read: true };
      await tx.update(MESSAGES, ownedKey(agentId, messageId), next);
      await this.events.append(tx, { type: 'email.read', agent_id: agentId, data: { message_id: messageId } });
      return next;
    });
    return messageView(read, this.config.filesUrl);
  }

  /** The bytes of an attachment of one of the agent's messages. @throws ApiError 404 not_found */
  async download(agentId: string, attachmentId: string): Promise<BinaryBody> {
    const attachment = await this.mailboxes.attachment(agentId, attachmentId);
    if (!attachment || !(await this.blobs.has(attachment.sha256))) throw notFound('attachment');
    const blobs = this.blobs;
    return {
      kind: 'binary',
      contentType: attachment.content_type,
      filename: attachment.filename,
      size: attachment.size,
      open: () => blobBytes(blobs, attachment.sha256),
    };
  }

  private async dispatch(sender: AgentRecord, draft: Draft): Promise<SentEmail> {
    const { agents, external } = await this.route(draft);
    const attachments = await this.mailboxes.storeAttachments(draft.attachments.map((input) => ({ filename: input.filename, content_type: input.content_type, content: Buffer.from(input.content, 'base64') })));
    const messageId = this.random.id('message');
    const threadId = draft.threadId ?? this.random.id('thread');
    const nowMs = this.clock.now();
    const sentAt = toIso(nowMs);
    const headers = composedHeaders({
      messageId: messageIdHeader(messageId, this.config.serviceDomain),
      date: rfc5322Date(nowMs),
      from: sender.email,
      to: draft.to,
      cc: draft.cc,
      subject: draft.subject,
      inReplyTo: draft.inReplyTo ?? null,
      references: draft.references ?? null,
    });
    const base: StoredMessage = {
      id: messageId,
      owner: sender.agent_id,
      folder: 'sent',
      thread_id: threadId,
      from: sender.email,
      to: [...draft.to],
      cc: [...draft.cc],
      bcc: [...draft.bcc],
      subject: draft.subject,
      text: draft.text,
      html: draft.html,
      headers,
      attachments,
      snippet: snippetOf(draft.text, draft.html),
      received_at: sentAt,
      received_ms: nowMs,
      read: true,
    };
    const outbound: OutboundRecord | null =
      external.length === 0
        ? null
        : {
            message_id: messageId,
            thread_id: threadId,
            owner: sender.agent_id,
            from: sender.email,
            to: base.to,
            cc: base.cc,
            bcc: base.bcc,
            recipients: external,
            subject: base.subject,
            text: base.text,
            html: base.html,
            headers,
            attachments,
            sent_at: sentAt,
            sent_ms: nowMs,
            status: 'queued',
            accepted: [],
            rejected: [],
            error: null,
          };
    await this.store.transaction(async (tx) => {
      await this.mailboxes.writeCopy(tx, base);
      await this.mailboxes.registerMessageId(tx, headers['Message-ID']!, threadId);
      await this.events.append(tx, {
        type: 'email.sent',
        agent_id: sender.agent_id,
        data: { message_id: messageId, thread_id: threadId, internal_recipients: agents.length, external_recipients: external.length },
      });
      for (const agentId of agents) {
        // Mail to oneself: the inbox copy needs its own id, as both copies live in one mailbox.
        const id = agentId === sender.agent_id ? this.random.id('message') : messageId;
        await this.mailboxes.writeCopy(tx, { ...base, id, owner: agentId, folder: 'inbox', bcc: [], read: false });
        await this.events.append(tx, { type: 'email.received', agent_id: agentId, data: { message_id: id, thread_id: threadId, from: sender.email, subject: draft.subject } });
      }
      if (outbound) await this.outbound.record(tx, outbound);
      await this.identity.recordActivity(tx, sender.agent_id, 'messages_sent');
    });
    if (outbound) await this.outbound.handOff(outbound);
    return { message_id: messageId, thread_id: threadId, sent_at: sentAt };
  }

  /** Splits recipients into agents (once each) and outside addresses (once each). */
  private async route(draft: Draft): Promise<{ agents: string[]; external: string[] }> {
    const agents: string[] = [];
    const external: string[] = [];
    for (const field of ['to', 'cc', 'bcc'] as const) {
      for (const [index, address] of draft[field].entries()) {
        const destination = await this.mailboxes.destination(address);
        if (destination.kind === 'unknown') {
          throw new ApiError('recipient_not_found', `${address}: no agent of this service has this address`, draft.paramsNameFields ? `${field}.${index}` : undefined);
        }
        if (destination.kind === 'agent') {
          if (!agents.includes(destination.agentId)) agents.push(destination.agentId);
        } else if (!external.some((known) => known.toLowerCase() === address.toLowerCase())) {
          external.push(address);
        }
      }
    }
    return { agents, external };
  }
}
