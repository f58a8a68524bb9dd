import { z } from 'zod';
import { atLeastOneOf, dictionary, intParam, isoDateTime, maxChars, timestamp } from '../shared/schemas.js';
import { isValidAddress } from './address.js';
import { isStrictBase64 } from './compose.js';

/** Longest subject (SPEC.md part 8), in characters. */
export const SUBJECT_MAX = 998;
/** Most addresses in each of to, cc and bcc. */
export const RECIPIENTS_MAX = 100;
/** Most attachments on one message. */
export const ATTACHMENTS_MAX = 50;
/**
 * Largest request body of send, reply and simulated inbound mail, and largest message the SMTP
 * listener accepts: 35 MiB, which leaves room for about 25 MiB of attachments once Base64 grows
 * them by a third (the usual 25 MB limit of mail providers).
 */
export const EMAIL_MAX_BODY_BYTES = 35 * 1024 * 1024;

/** The mailbox folders; `drafts` exists and stays empty (SPEC.md has no draft endpoints). */
export const Folder = z.enum(['inbox', 'sent', 'drafts']);
export type Folder = z.infer<typeof Folder>;

/** An RFC 5322 addr-spec such as `bob@example.com` (no display names). */
export const EmailAddress = z
  .string()
  .refine(isValidAddress, { message: 'must be an email address such as bob@example.com' })
  .meta({ format: 'email', description: 'An RFC 5322 addr-spec such as bob@example.com (no display name)' });

const AddressList = z.array(EmailAddress).max(RECIPIENTS_MAX);

/** A header value cannot carry line breaks (they would start a new header). */
const ONE_LINE = /^[^\r\n]*$/;

/** A subject: at most 998 characters, one line. */
export const Subject = maxChars(SUBJECT_MAX).regex(ONE_LINE, { message: 'must not contain line breaks' });

/** A MIME type such as `application/pdf` or `text/plain; charset=utf-8`. */
const MIME_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(?:\s*;[^\x00-\x1f\x7f]*)?$/;

/** One attachment of a send or reply: the bytes as Base64. */
export const AttachmentInput = z.strictObject({
  filename: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[^\x00-\x1f\x7f]*$/, { message: 'must not contain control characters' }),
  content: z
    .string()
    .refine(isStrictBase64, { message: 'must be Base64 (RFC 4648 standard alphabet, padded, no white space)' })
    .meta({ pattern: '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$', contentEncoding: 'base64' }),
  content_type: z.string().max(255).regex(MIME_TYPE, { message: 'must be a MIME type such as application/pdf' }),
});
export type AttachmentInput = z.infer<typeof AttachmentInput>;

const bodyFields = {
  text: z.string().nullish(),
  html: z.string().nullish(),
  attachments: z.array(AttachmentInput).max(ATTACHMENTS_MAX).nullish(),
};

/**
 * Body of `POST /v1/email/send`. There is no `from`: the sender is always the agent's own address,
 * and an unknown field is refused like any other (400 on `from`).
 */
export const SendEmailBody = atLeastOneOf(
  z.strictObject({
    to: AddressList.min(1),
    cc: AddressList.nullish(),
    bcc: AddressList.nullish(),
    subject: Subject,
    ...bodyFields,
  }),
  ['text', 'html'],
);
export type SendEmailBody = z.infer<typeof SendEmailBody>;

/** Body of `POST /v1/email/messages/{id}/reply`. */
export const ReplyEmailBody = atLeastOneOf(z.strictObject(bodyFields), ['text', 'html']);
export type ReplyEmailBody = z.infer<typeof ReplyEmailBody>;

/** Answer of send and reply. */
export const SentEmail = z.object({ message_id: z.string(), thread_id: z.string(), sent_at: timestamp });
export type SentEmail = z.infer<typeof SentEmail>;

/** An ISO 8601 date-time with a zone, as a query parameter. */
const IsoQuery = isoDateTime;

/** Query of `GET /v1/email/messages`. */
export const ListEmailQuery = z.strictObject({
  folder: Folder.default('inbox'),
  limit: intParam(1, 100).default(20),
  cursor: z.string().min(1).max(512).optional(),
  since: IsoQuery.optional(),
  thread_id: z.string().min(1).max(100).optional(),
});
export type ListEmailQuery = z.infer<typeof ListEmailQuery>;

/** A listing element (SPEC.md plus `thread_id`). */
export const EmailSummary = z.object({
  id: z.string(),
  thread_id: z.string(),
  from: z.string(),
  to: z.array(z.string()),
  subject: z.string(),
  snippet: z.string(),
  received_at: timestamp,
  has_attachments: z.boolean(),
  read: z.boolean(),
});
export type EmailSummary = z.infer<typeof EmailSummary>;

/** Answer of `GET /v1/email/messages`: newest first. */
export const EmailList = z.object({ messages: z.array(EmailSummary), next_cursor: z.string().nullable() });
export type EmailList = z.infer<typeof EmailList>;

/** Attachment metadata of a full message; `url` serves the bytes to the owning agent only. */
export const EmailAttachment = z.object({
  attachment_id: z.string(),
  filename: z.string(),
  content_type: z.string(),
  size: z.number().int(),
  url: z.string(),
});
export type EmailAttachment = z.infer<typeof EmailAttachment>;

/** A result of SPF, DKIM or DMARC as RFC 8601 names it. */
export const AuthResult = z.enum(['pass', 'fail', 'softfail', 'neutral', 'none', 'temperror', 'permerror']);
export type AuthResult = z.infer<typeof AuthResult>;

/**
 * Who really sent a message (DECISIONS.md, "Mail on the internet"): SPF of the connecting address
 * against the envelope sender's domain, every DKIM signature, and DMARC alignment with the From
 * domain. Mail between agents of the service never left it and reads spf and dmarc pass.
 */
export const MessageAuthentication = z.object({
  spf: AuthResult,
  dkim: z.array(z.object({ domain: z.string(), selector: z.string(), result: AuthResult })),
  dmarc: AuthResult,
  from_domain: z.string(),
});
export type MessageAuthentication = z.infer<typeof MessageAuthentication>;

/**
 * The full message (SPEC.md), plus `folder`, `bcc` and `authentication`: bcc lists the blind
 * copies on the sender's own sent copy and is always empty on a delivered copy; authentication is
 * the verdict on who sent it, null for mail that was never checked (given to the control plane).
 */
export const EmailMessage = z.object({
  id: z.string(),
  thread_id: z.string(),
  folder: Folder,
  from: z.string(),
  to: z.array(z.string()),
  cc: z.array(z.string()),
  bcc: z.array(z.string()),
  subject: z.string(),
  text: z.string().nullable(),
  html: z.string().nullable(),
  headers: z.record(z.string(), z.string()),
  attachments: z.array(EmailAttachment),
  received_at: timestamp,
  read: z.boolean(),
  authentication: MessageAuthentication.nullable(),
});
export type EmailMessage = z.infer<typeof EmailMessage>;

/** Path of the message routes. */
export const EmailIdParams = z.strictObject({ id: z.string().min(1).max(200) });
export type EmailIdParams = z.infer<typeof EmailIdParams>;

/** Path of the attachment download. */
export const AttachmentParams = z.strictObject({ attachment_id: z.string().min(1).max(200) });
export type AttachmentParams = z.infer<typeof AttachmentParams>;

/** A header name (RFC 5322 ftext) and a one-line value, for simulated inbound mail. */
const HeaderName = z.string().regex(/^[\x21-\x39\x3b-\x7e]{1,76}$/, { message: 'must be a header name' });
const HeaderValue = z.string().max(998).regex(ONE_LINE, { message: 'must not contain line breaks' });

/**
 * Body of `POST /_sim/email/inbound`: mail from outside the service, either as fields
 * (`to`, `from`, `subject` required) or as one RFC 5322 message in `raw` (then `to`, if given, is
 * the envelope: the recipients it is delivered to instead of the local addresses of its headers).
 */
export const InboundEmailBody = z
  .strictObject({
    raw: z.string().min(1).optional(),
    to: z.union([EmailAddress, z.array(EmailAddress).min(1).max(RECIPIENTS_MAX)]).optional(),
    cc: AddressList.nullish(),
    from: EmailAddress.optional(),
    subject: Subject.optional(),
    headers: dictionary(HeaderName, HeaderValue, 1000).optional(),
    ...bodyFields,
  })
  .superRefine((body, ctx) => {
    if (body.raw !== undefined) {
      const extra = (['cc', 'from', 'subject', 'headers', 'text', 'html', 'attachments'] as const).find((key) => body[key] !== undefined && body[key] !== null);
      if (extra) ctx.addIssue({ code: 'custom', path: [extra], message: 'cannot be combined with raw (put it in the message)' });
      return;
    }
    for (const key of ['to', 'from', 'subject'] as const) {
      if (body[key] === undefined) ctx.addIssue({ code: 'custom', path: [key], message: 'is required (or send the whole message as raw)' });
    }
  })
  .meta({
    oneOf: [
      {
        required: ['raw'],
        not: { anyOf: ['cc', 'from', 'subject', 'headers', 'text', 'html', 'attachments'].map((key) => ({ required: [key], properties: { [key]: { not: { type: 'null' } } } })) },
      },
      { required: ['to', 'from', 'subject'], not: { required: ['raw'] } },
    ],
  });
export type InboundEmailBody = z.infer<typeof InboundEmailBody>;

/** Answer of `POST /_sim/email/inbound` and of a delivery through the SMTP listener. */
export const InboundAccepted = z.object({ message_id: z.string(), thread_id: z.string() });
export type InboundAccepted = z.infer<typeof InboundAccepted>;

/** One message handed (or to be handed) to the outbound mail transport. */
export const OutboxMessage = z.object({
  message_id: z.string(),
  thread_id: z.string(),
  from: z.string(),
  to: z.array(z.string()),
  cc: z.array(z.string()),
  bcc: z.array(z.string()),
  /** The envelope: every recipient outside the service (to, cc and bcc). */
  recipients: z.array(z.string()),
  subject: z.string(),
  text: z.string().nullable(),
  html: z.string().nullable(),
  headers: z.record(z.string(), z.string()),
  attachments: z.array(EmailAttachment),
  sent_at: timestamp,
  status: z.enum(['queued', 'sent', 'failed']),
  accepted: z.array(z.string()),
  rejected: z.array(z.string()),
  error: z.string().nullable(),
  /** Delivery attempts made so far. */
  attempts: z.number().int(),
  /** When the next attempt is due (a recipient is queued or deferred), else null. */
  next_attempt_at: timestamp.nullable(),
  /** Each envelope recipient: queued, deferred (temporary failure, retried), sent or failed (bounced). */
  recipient_states: z.array(
    z.object({
      address: z.string(),
      state: z.enum(['queued', 'deferred', 'sent', 'failed']),
      attempts: z.number().int(),
      last_attempt_at: timestamp.nullable(),
      reply_code: z.number().int().nullable(),
      diagnostic: z.string().nullable(),
    }),
  ),
});
export type OutboxMessage = z.infer<typeof OutboxMessage>;

/** Answer of `GET /_sim/email/outbox`: oldest first. */
export const Outbox = z.object({ messages: z.array(OutboxMessage) });
export type Outbox = z.infer<typeof Outbox>;
