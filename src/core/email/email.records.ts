import { toIso } from '../shared/time.js';
import type { EmailAttachment, EmailMessage, EmailSummary, OutboxMessage } from './email.schema.js';

/**
 * How mail is stored. Every delivered copy is its own record in its owner's mailbox: the sender's
 * copy in `sent`, each recipient agent's copy in its `inbox`. All copies of one message share the
 * message id (`msg_…`, also the left part of the `Message-ID` header) and the thread id; records
 * are keyed by owner and id, so an id opens only the caller's own copy. The one exception is mail
 * an agent sends to itself: its inbox copy gets a fresh id so that each id names one copy.
 */

/** Message copies, key `owner/id`, partition `owner/folder` (newest-first pages stay O(page)). */
export const MESSAGES = 'email_messages';
/** Thread index: key `owner/id`, partition `owner/folder/thread_id`, so thread filters stay O(page). */
export const THREAD_INDEX = 'email_thread_index';
/** Message-ID (without brackets) → thread id, for threading mail that arrives from outside. */
export const MESSAGE_IDS = 'email_message_ids';
/** Attachments an agent may download, key `owner/attachment_id`, partition owner. */
export const ATTACHMENTS = 'email_attachments';
/** Mail handed to the outbound transport, key message id (the simulated outbox). */
export const OUTBOUND = 'email_outbound';

/** Key of an agent's record of `id` (message or attachment). */
export function ownedKey(owner: string, id: string): string {
  return `${owner}/${id}`;
}

/** Partition of a folder of an agent. */
export function folderPartition(owner: string, folder: string): string {
  return `${owner}/${folder}`;
}

/** Partition of a thread within a folder of an agent. */
export function threadPartition(owner: string, folder: string, threadId: string): string {
  return `${owner}/${folder}/${threadId}`;
}

/** Attachment metadata as stored; the bytes are the blob with this hash. */
export interface StoredAttachment {
  attachment_id: string;
  filename: string;
  content_type: string;
  size: number;
  sha256: string;
}

/** One copy of a message in one agent's mailbox. */
export interface StoredMessage {
  id: string;
  owner: string;
  folder: 'inbox' | 'sent';
  thread_id: string;
  from: string;
  to: string[];
  cc: string[];
  /** Only on the sender's own copy. */
  bcc: string[];
  subject: string;
  text: string | null;
  html: string | null;
  headers: Record<string, string>;
  attachments: StoredAttachment[];
  snippet: string;
  received_at: string;
  received_ms: number;
  read: boolean;
}

/** A thread index entry. */
export interface ThreadEntry {
  key: string;
}

/** An attachment an agent owns, for downloads. */
export interface OwnedAttachment extends StoredAttachment {
  owner: string;
  message_id: string;
}

/**
 * Where one envelope recipient of an outbound message stands: `queued` (not tried yet),
 * `deferred` (a temporary failure, tried again at the message's next attempt), `sent` (the relay
 * accepted it) or `failed` (refused for good, or given up; the sender got a bounce).
 */
export interface RecipientState {
  address: string;
  state: 'queued' | 'deferred' | 'sent' | 'failed';
  attempts: number;
  last_attempt_at: string | null;
  /** The SMTP reply code of the last answer, null before any or when the relay never answered. */
  reply_code: number | null;
  /** The last answer or error text. */
  diagnostic: string | null;
}

/** An outbound message and what the transport did with it. */
export interface OutboundRecord extends Pick<StoredMessage, 'thread_id' | 'owner' | 'from' | 'to' | 'cc' | 'bcc' | 'subject' | 'text' | 'html' | 'headers' | 'attachments'> {
  message_id: string;
  /** The envelope: every recipient outside the service (to, cc and bcc). */
  recipients: string[];
  sent_at: string;
  sent_ms: number;
  status: 'queued' | 'sent' | 'failed';
  accepted: string[];
  rejected: string[];
  error: string | null;
  /** Per-recipient states (records written before the queue existed have none: derived from accepted/rejected). */
  recipient_states?: RecipientState[];
  /** Attempts made so far. */
  attempts?: number;
  /** When the next attempt is due, ms; null when nothing waits. */
  next_attempt_ms?: number | null;
  /** The job that makes (or, after a crash mid-attempt, repeats) the next attempt. */
  job_id?: string | null;
  /** The bounce delivered to the sender's inbox, if any recipient failed. */
  bounce_ids?: string[];
}

/** The recipient states of a record, derived for records written before the queue kept them. */
export function recipientStates(record: OutboundRecord): RecipientState[] {
  if (record.recipient_states) return record.recipient_states;
  return record.recipients.map((address) => {
    const sent = record.accepted.includes(address);
    const failed = record.rejected.includes(address);
    return {
      address,
      state: sent ? 'sent' : failed ? 'failed' : 'queued',
      attempts: sent || failed ? 1 : 0,
      last_attempt_at: sent || failed ? record.sent_at : null,
      reply_code: null,
      diagnostic: failed ? record.error : null,
    };
  });
}

/** The public metadata of an attachment, with its download URL on `{files_url}`. */
export function attachmentView(attachment: StoredAttachment, filesUrl: string): EmailAttachment {
  return {
    attachment_id: attachment.attachment_id,
    filename: attachment.filename,
    content_type: attachment.content_type,
    size: attachment.size,
    url: `${filesUrl}/attachments/${attachment.attachment_id}`,
  };
}

/** The listing element of a stored copy. */
export function summaryView(message: StoredMessage): EmailSummary {
  return {
    id: message.id,
    thread_id: message.thread_id,
    from: message.from,
    to: [...message.to],
    subject: message.subject,
    snippet: message.snippet,
    received_at: message.received_at,
    has_attachments: message.attachments.length > 0,
    read: message.read,
  };
}

/** The full message of a stored copy. */
export function messageView(message: StoredMessage, filesUrl: string): EmailMessage {
  return {
    id: message.id,
    thread_id: message.thread_id,
    folder: message.folder,
    from: message.from,
    to: [...message.to],
    cc: [...message.cc],
    bcc: [...message.bcc],
    subject: message.subject,
    text: message.text,
    html: message.html,
    headers: { ...message.headers },
    attachments: message.attachments.map((attachment) => attachmentView(attachment, filesUrl)),
    received_at: message.received_at,
    read: message.read,
  };
}

/** An outbox entry of a stored outbound record. */
export function outboxView(record: OutboundRecord, filesUrl: string): OutboxMessage {
  return {
    message_id: record.message_id,
    thread_id: record.thread_id,
    from: record.from,
    to: [...record.to],
    cc: [...record.cc],
    bcc: [...record.bcc],
    recipients: [...record.recipients],
    subject: record.subject,
    text: record.text,
    html: record.html,
    headers: { ...record.headers },
    attachments: record.attachments.map((attachment) => attachmentView(attachment, filesUrl)),
    sent_at: record.sent_at,
    status: record.status,
    accepted: [...record.accepted],
    rejected: [...record.rejected],
    error: record.error,
    attempts: record.attempts ?? (record.status === 'queued' ? 0 : 1),
    next_attempt_at: record.next_attempt_ms === undefined || record.next_attempt_ms === null ? null : toIso(record.next_attempt_ms),
    recipient_states: recipientStates(record).map((state) => ({ ...state })),
  };
}
