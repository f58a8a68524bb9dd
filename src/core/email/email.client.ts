import type { Download } from '../api/binary.js';
import type { CallOptions } from '../api/transport.js';
import type { TypedCall } from '../api/typed-call.js';
import { emailRoutes as routes } from './email.routes.js';
import type { EmailList, EmailMessage, InboundAccepted, InboundEmailBody, ListEmailQuery, Outbox, ReplyEmailBody, SendEmailBody, SentEmail } from './email.schema.js';

/** Email endpoints as client methods. */
export interface EmailClient {
  /** `POST /v1/email/send` */
  sendEmail(body: SendEmailBody, options?: CallOptions): Promise<SentEmail>;
  /** `GET /v1/email/messages` */
  listEmails(query?: Partial<ListEmailQuery>): Promise<EmailList>;
  /** `GET /v1/email/messages/{id}` (marks the message read) */
  getEmail(id: string): Promise<EmailMessage>;
  /** `POST /v1/email/messages/{id}/reply` */
  replyToEmail(id: string, body: ReplyEmailBody, options?: CallOptions): Promise<SentEmail>;
  /** `GET {files_url}/attachments/{attachment_id}` (the `url` of an attachment) */
  downloadEmailAttachment(attachmentId: string): Promise<Download>;
}

/** Builds the email methods over a typed call. */
export function emailClient(call: TypedCall): EmailClient {
  return {
    sendEmail: (body, options) => call(routes.send, { body }, options),
    listEmails: (query = {}) => call(routes.list, { query }),
    getEmail: (id) => call(routes.get, { params: { id } }),
    replyToEmail: (id, body, options) => call(routes.reply, { params: { id }, body }, options),
    downloadEmailAttachment: (attachmentId) => call(routes.downloadAttachment, { params: { attachment_id: attachmentId } }),
  };
}

/** The email part of the control plane. */
export interface EmailSimClient {
  /** `POST /_sim/email/inbound` */
  deliverInboundEmail(body: InboundEmailBody, options?: CallOptions): Promise<InboundAccepted>;
  /** `GET /_sim/email/outbox` */
  emailOutbox(): Promise<Outbox>;
}

/** Builds the email control-plane methods over a typed call. */
export function emailSimClient(call: TypedCall): EmailSimClient {
  return {
    deliverInboundEmail: (body, options) => call(routes.simInbound, { body }, options),
    emailOutbox: () => call(routes.simOutbox),
  };
}
