import { inject, injectable } from '../shared/di.js';
import { BlobStore } from '../ports/blob-store.js';
import { Random } from '../ports/random.js';
import { Store, type StoreTransaction, type StoreView } from '../ports/store.js';
import { IdentityService } from '../identity/identity.service.js';
import { ApiError } from '../shared/api-error.js';
import { decodeCursor, encodeCursor } from '../shared/cursor.js';
import { ServiceConfig } from '../shared/service-config.js';
import { parseIso } from '../shared/time.js';
import { localMailboxName } from './address.js';
import { msgIds } from './compose.js';
import type { EmailList, Folder } from './email.schema.js';
import {
  ATTACHMENTS,
  MESSAGE_IDS,
  MESSAGES,
  THREAD_INDEX,
  folderPartition,
  ownedKey,
  summaryView,
  threadPartition,
  type OwnedAttachment,
  type StoredAttachment,
  type StoredMessage,
  type ThreadEntry,
} from './email.records.js';

/** Where an address leads. */
export type Destination = { kind: 'agent'; agentId: string } | { kind: 'external' } | { kind: 'unknown' };

/** Bytes of one attachment before they are stored. */
export interface AttachmentBytes {
  filename: string;
  content_type: string;
  content: Uint8Array;
}

/** A page request over one folder (and optionally one thread) of a mailbox. */
export interface MailboxPageQuery {
  folder: Folder;
  limit: number;
  cursor?: string | undefined;
  since?: string | undefined;
  thread_id?: string | undefined;
}

/**
 * The mailboxes of all agents: where an address leads, storing attachment bytes, writing a copy
 * of a message into a mailbox with its indexes, threading by Message-ID, and newest-first pages.
 * Shared by mail from agents and mail from outside, so both are stored the same way.
 */
@injectable()
export class Mailboxes {
  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Random) private readonly random: Random,
    @inject(BlobStore) private readonly blobs: BlobStore,
    @inject(ServiceConfig) private readonly config: ServiceConfig,
    @inject(IdentityService) private readonly identity: IdentityService,
  ) {}

  /** Whether `address` is an agent's mailbox, outside the service, or a mailbox that does not exist. */
  async destination(address: string): Promise<Destination> {
    const name = localMailboxName(address, this.config.serviceDomain);
    if (name === undefined) return { kind: 'external' };
    const agent = name === '' ? undefined : await this.identity.findByHandle(name);
    return agent ? { kind: 'agent', agentId: agent.agent_id } : { kind: 'unknown' };
  }

  /** Stores attachment bytes in the blob store (before the transaction that records them). */
  async storeAttachments(inputs: readonly AttachmentBytes[]): Promise<StoredAttachment[]> {
    const stored: StoredAttachment[] = [];
    for (const input of inputs) {
      const ref = await this.blobs.put(input.content);
      stored.push({ attachment_id: this.random.id('attachment'), filename: input.filename, content_type: input.content_type, size: ref.size, sha256: ref.sha256 });
    }
    return stored;
  }

  /** Writes one copy into its owner's mailbox: the record, the thread index and attachment ownership. */
  async writeCopy(tx: StoreTransaction, copy: StoredMessage): Promise<void> {
    const key = ownedKey(copy.owner, copy.id);
    await tx.insert<StoredMessage>(MESSAGES, key, copy, folderPartition(copy.owner, copy.folder));
    await tx.insert<ThreadEntry>(THREAD_INDEX, key, { key }, threadPartition(copy.owner, copy.folder, copy.thread_id));
    for (const attachment of copy.attachments) {
      const attachmentKey = ownedKey(copy.owner, attachment.attachment_id);
      // An agent mailing itself holds two copies of the same attachments; one ownership record serves both.
      if (await tx.get(ATTACHMENTS, attachmentKey)) continue;
      await tx.insert<OwnedAttachment>(ATTACHMENTS, attachmentKey, { ...attachment, owner: copy.owner, message_id: copy.id }, copy.owner);
    }
  }

  /** Remembers which thread a Message-ID belongs to (the first message with an id wins). */
  async registerMessageId(tx: StoreTransaction, messageId: string, threadId: string): Promise<void> {
    const id = msgIds(messageId)[0];
    if (id === undefined) return;
    const key = id.slice(1, -1);
    if (!(await tx.get(MESSAGE_IDS, key))) await tx.insert(MESSAGE_IDS, key, { thread_id: threadId });
  }

  /**
   * The thread a message joins: that of the nearest known message it answers (In-Reply-To, then
   * References from the newest), or of an earlier copy of itself; undefined when none is known.
   */
  async knownThread(view: StoreView, fields: { messageId: string | null; inReplyTo: string | null; references: string | null }): Promise<string | undefined> {
    const candidates = [...msgIds(fields.inReplyTo), ...msgIds(fields.references).reverse(), ...msgIds(fields.messageId)];
    for (const id of candidates) {
      const known = await view.get<{ thread_id: string }>(MESSAGE_IDS, id.slice(1, -1));
      if (known) return known.thread_id;
    }
    return undefined;
  }

  /** An agent's own copy of a message, or undefined (also when it is another agent's). */
  copy(view: StoreView, owner: string, id: string): Promise<StoredMessage | undefined> {
    return view.get<StoredMessage>(MESSAGES, ownedKey(owner, id));
  }

  /** An attachment the agent may download, or undefined. */
  attachment(owner: string, attachmentId: string): Promise<OwnedAttachment | undefined> {
    return this.store.view.get<OwnedAttachment>(ATTACHMENTS, ownedKey(owner, attachmentId));
  }

  /**
   * A newest-first page of a folder. Each folder, and each thread within a folder, is its own
   * partition, and since newest-first is also time order, `since` ends the walk at the first older
   * message: a page costs O(limit) whatever the mailbox holds.
   * @throws ApiError 400 invalid_request (cursor of another list)
   */
  async page(owner: string, query: MailboxPageQuery): Promise<EmailList> {
    const list = query.thread_id === undefined ? `email.${query.folder}` : `email.${query.folder}.${query.thread_id}`;
    const before = query.cursor === undefined ? undefined : decodeCursor(list, query.cursor);
    if (query.folder === 'drafts') return { messages: [], next_cursor: null };
    const sinceMs = query.since === undefined ? undefined : parseIso(query.since);
    if (query.since !== undefined && sinceMs === undefined) throw new ApiError('invalid_request', 'since: must be an ISO 8601 date-time', 'since');
    const view = this.store.view;
    const rows =
      query.thread_id === undefined
        ? (await view.page<StoredMessage>(MESSAGES, { partition: folderPartition(owner, query.folder), limit: query.limit + 1, ...(before === undefined ? {} : { before }) })).items
        : await Promise.all(
            (await view.page<ThreadEntry>(THREAD_INDEX, { partition: threadPartition(owner, query.folder, query.thread_id), limit: query.limit + 1, ...(before === undefined ? {} : { before }) })).items.map(
              async ({ record, position }) => ({ record: (await view.get<StoredMessage>(MESSAGES, record.key))!, position }),
            ),
          );
    const kept = [];
    for (const row of rows) {
      if (sinceMs !== undefined && row.record.received_ms <= sinceMs) break;
      kept.push(row);
    }
    const page = kept.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      messages: page.map(({ record }) => summaryView(record)),
      next_cursor: kept.length > query.limit && last ? encodeCursor(list, last.position) : null,
    };
  }
}
