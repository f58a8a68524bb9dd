import { defineRoute } from '../api/route.js';
import { AttachmentParams, EMAIL_MAX_BODY_BYTES, EmailIdParams, EmailList, EmailMessage, InboundAccepted, InboundEmailBody, ListEmailQuery, Outbox, ReplyEmailBody, SendEmailBody, SentEmail } from './email.schema.js';

/** The email endpoints of SPEC.md part 4, the attachment download and the email control plane. */
export const emailRoutes = {
  /** Sends mail from the agent's own address: to agents of the service straight into their inboxes, to anyone else through the outbound transport. `POST /v1/email/send` */
  send: defineRoute({
    id: 'email.send',
    method: 'POST',
    path: '/v1/email/send',
    auth: 'agent',
    tag: 'email',
    status: 201,
    summary: "Sends mail from the agent's own address: to agents of the service straight into their inboxes, to anyone else through the outbound transport.",
    body: SendEmailBody,
    response: SentEmail,
    maxBodyBytes: EMAIL_MAX_BODY_BYTES,
  }),
  /** A newest-first page of a folder (inbox, sent or drafts), optionally of one thread or after an instant. `GET /v1/email/messages` */
  list: defineRoute({
    id: 'email.list',
    method: 'GET',
    path: '/v1/email/messages',
    auth: 'agent',
    tag: 'email',
    status: 200,
    summary: 'A newest-first page of a folder (inbox, sent or drafts), optionally of one thread or after an instant.',
    query: ListEmailQuery,
    response: EmailList,
  }),
  /** The full message (headers, bodies, attachments with download URLs); marks the agent's copy read. `GET /v1/email/messages/{id}` */
  get: defineRoute({
    id: 'email.get',
    method: 'GET',
    path: '/v1/email/messages/{id}',
    auth: 'agent',
    tag: 'email',
    status: 200,
    summary: "The full message (headers, bodies, attachments with download URLs); marks the agent's copy read.",
    params: EmailIdParams,
    response: EmailMessage,
  }),
  /** Replies in the message's thread: to its sender, or to its recipients for the agent's own sent mail; subject prefixed Re: once. `POST /v1/email/messages/{id}/reply` */
  reply: defineRoute({
    id: 'email.reply',
    method: 'POST',
    path: '/v1/email/messages/{id}/reply',
    auth: 'agent',
    tag: 'email',
    status: 201,
    summary: "Replies in the message's thread: to its sender, or to its recipients for the agent's own sent mail; subject prefixed Re: once.",
    params: EmailIdParams,
    body: ReplyEmailBody,
    response: SentEmail,
    maxBodyBytes: EMAIL_MAX_BODY_BYTES,
  }),
  /** The bytes of an attachment of one of the agent's messages (404 for anyone else). `GET /files/attachments/{attachment_id}` */
  downloadAttachment: defineRoute({
    id: 'email.downloadAttachment',
    method: 'GET',
    path: '/files/attachments/{attachment_id}',
    auth: 'agent',
    tag: 'email',
    status: 200,
    summary: "The bytes of an attachment of one of the agent's messages (404 for anyone else).",
    params: AttachmentParams,
    binary: true,
  }),
};

/** The email part of the simulation control plane. */
export const emailSimRoutes = {
  /** Delivers mail from outside the service to agents: as fields, or as a raw RFC 5322 message. `POST /_sim/email/inbound` */
  emailInbound: defineRoute({
    id: 'sim.emailInbound',
    method: 'POST',
    path: '/_sim/email/inbound',
    auth: 'admin',
    tag: 'simulation',
    status: 201,
    summary: 'Delivers mail from outside the service to agents: as fields, or as a raw RFC 5322 message.',
    body: InboundEmailBody,
    response: InboundAccepted,
    maxBodyBytes: EMAIL_MAX_BODY_BYTES,
  }),
  /** Mail addressed outside the service, oldest first, with what the transport did with it. `GET /_sim/email/outbox` */
  emailOutbox: defineRoute({
    id: 'sim.emailOutbox',
    method: 'GET',
    path: '/_sim/email/outbox',
    auth: 'admin',
    tag: 'simulation',
    status: 200,
    summary: 'Mail addressed outside the service, oldest first, with what the transport did with it.',
    response: Outbox,
  }),
};
