import { inject, injectable } from '../shared/di.js';
import { Clock } from '../ports/clock.js';
import { EventLog } from '../ports/event-log.js';
import { MailParser, type ParsedMail } from '../ports/mail-parser.js';
import { Random } from '../ports/random.js';
import { Store } from '../ports/store.js';
import { ApiError } from '../shared/api-error.js';
import { ServiceConfig } from '../shared/service-config.js';
import { toIso } from '../shared/time.js';
import { isValidAddress } from './address.js';
import { messageIdHeader, msgIds, rfc5322Date, snippetOf } from './compose.js';
import type { InboundAccepted, InboundEmailBody } from './email.schema.js';
import { composedHeaders, headersMap } from './headers.js';
import { Mailboxes, type AttachmentBytes } from './mailboxes.js';

/**
 * How mail from outside reaches the service's mailboxes; the runtime hands this to inbound edges
 * such as the SMTP listener.
 */
export interface MailInbound {
  /** Whether mail for `address` is accepted: it is the address of an agent of the service. */
  hasMailbox(address: string): Promise<boolean>;
  /**
   * Delivers one RFC 5322 message to `recipients` (the SMTP envelope), or, without them, to the
   * agents among its To, Cc and Bcc headers.
   * @throws ApiError 404 recipient_not_found (a recipient has no mailbox), 400 invalid_request (unparsable)
   */
  deliverRaw(raw: Uint8Array, recipients?: readonly string[]): Promise<InboundAccepted>;
}

/** A message from outside, taken apart, before it is stored. */
interface IncomingMail {
  from: string;
  to: string[];
  cc: string[];
  subject: string;
  text: string | null;
  html: string | null;
  headers: Record<string, string>;
  attachments: AttachmentBytes[];
  messageId: string | null;
  inReplyTo: string | null;
  references: string | null;
}

/**
 * Mail from outside the service: `POST /_sim/email/inbound` (fields or a raw message) and the SMTP
 * listener. Raw mail from both is parsed by the same {@link MailParser} and stored by the same
 * code, so the same bytes give the same stored message either way. A message that answers one
 * the service knows (In-Reply-To or References naming a known Message-ID) joins its thread.
 */
@injectable()
export class InboundMailService implements MailInbound {
  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    @inject(Random) private readonly random: Random,
    @inject(EventLog) private readonly events: EventLog,
    @inject(ServiceConfig) private readonly config: ServiceConfig,
    @inject(Mailboxes) private readonly mailboxes: Mailboxes,
    @inject(MailParser) private readonly parser: MailParser,
  ) {}

  async hasMailbox(address: string): Promise<boolean> {
    return isValidAddress(address) && (await this.mailboxes.destination(address)).kind === 'agent';
  }

  /**
   * `POST /_sim/email/inbound`.
   * @throws ApiError 404 recipient_not_found, 400 invalid_request
   */
  async receive(body: InboundEmailBody): Promise<InboundAccepted> {
    const to = body.to === undefined ? [] : Array.isArray(body.to) ? body.to : [body.to];
    const toParams = to.map((address, index) => [address, Array.isArray(body.to) ? `to.${index}` : 'to'] as const);
    if (body.raw !== undefined) return this.parseAndDeliver(Buffer.from(body.raw, 'utf8'), body.to === undefined ? undefined : toParams);
    const cc = body.cc ?? [];
    const agents = await this.agentsAmong([...toParams, ...cc.map((address, index) => [address, `cc.${index}`] as const)]);
    const extra = body.headers ?? {};
    const header = (name: string) => Object.entries(extra).find(([key]) => key.toLowerCase() === name)?.[1] ?? null;
    const messageId = msgIds(header('message-id'))[0] ?? null;
    const from = body.from!;
    const subject = body.subject!;
    const nowMs = this.clock.now();
    const headers = composedHeaders({ messageId: messageId ?? '', date: rfc5322Date(nowMs), from, to, cc, subject }, extra);
    return this.deliver(
      {
        from,
        to,
        cc,
        subject,
        text: body.text ?? null,
        html: body.html ?? null,
        headers,
        attachments: (body.attachments ?? []).map((input) => ({ filename: input.filename, content_type: input.content_type, content: Buffer.from(input.content, 'base64') })),
        messageId,
        inReplyTo: header('in-reply-to'),
        references: header('references'),
      },
      agents,
    );
  }

  deliverRaw(raw: Uint8Array, recipients?: readonly string[]): Promise<InboundAccepted> {
    return this.parseAndDeliver(
      raw,
      recipients?.map((address, index) => [address, `to.${index}`] as const),
    );
  }

  private async parseAndDeliver(raw: Uint8Array, envelope: ReadonlyArray<readonly [string, string]> | undefined): Promise<InboundAccepted> {
    let parsed: ParsedMail;
    try {
      parsed = await this.parser.parse(raw);
    } catch {
      throw new ApiError('invalid_request', 'raw: not an RFC 5322 message that can be parsed', 'raw');
    }
    const agents = envelope === undefined ? await this.agentsAmong([...parsed.to, ...parsed.cc, ...parsed.bcc].map((address) => [address, 'raw'] as const)) : await this.agentsAmong(envelope, true);
    return this.deliver(
      {
        from: parsed.from ?? '',
        to: parsed.to,
        cc: parsed.cc,
        subject: parsed.subject,
        text: parsed.text,
        html: parsed.html,
        headers: headersMap(parsed.headers),
        attachments: parsed.attachments.map((attachment, index) => ({
          filename: attachment.filename ?? `attachment-${index + 1}`,
          content_type: attachment.contentType,
          content: attachment.content,
        })),
        messageId: msgIds(parsed.messageId)[0] ?? null,
        inReplyTo: parsed.inReplyTo,
        references: parsed.references,
      },
      agents,
    );
  }

  /**
   * The agents among addresses, once each; with `envelope`, every address must be an agent's,
   * otherwise addresses outside the service are only header addresses and are skipped.
   * @throws ApiError 404 recipient_not_found (unknown mailbox of the service, or no agent at all)
   */
  private async agentsAmong(addresses: ReadonlyArray<readonly [address: string, param: string]>, envelope = false): Promise<string[]> {
    const agents: string[] = [];
    for (const [address, param] of addresses) {
      const destination = await this.mailboxes.destination(address);
      if (destination.kind === 'agent') {
        if (!agents.includes(destination.agentId)) agents.push(destination.agentId);
      } else if (destination.kind === 'unknown' || envelope) {
        throw new ApiError('recipient_not_found', `${address}: no agent of this service has this address`, param);
      }
    }
    if (agents.length === 0) throw new ApiError('recipient_not_found', 'the message is addressed to no agent of this service', addresses[0]?.[1] ?? 'to');
    return agents;
  }

  private async deliver(mail: IncomingMail, agents: string[]): Promise<InboundAccepted> {
    const attachments = await this.mailboxes.storeAttachments(mail.attachments);
    const id = this.random.id('message');
    const rfcMessageId = mail.messageId ?? messageIdHeader(id, this.config.serviceDomain);
    const headers = { ...mail.headers, 'Message-ID': mail.headers['Message-ID'] || rfcMessageId };
    const nowMs = this.clock.now();
    const receivedAt = toIso(nowMs);
    const snippet = snippetOf(mail.text, mail.html);
    const threadId = await this.store.transaction(async (tx) => {
      const thread = (await this.mailboxes.knownThread(tx, { messageId: rfcMessageId, inReplyTo: mail.inReplyTo, references: mail.references })) ?? this.random.id('thread');
      await this.mailboxes.registerMessageId(tx, rfcMessageId, thread);
      for (const owner of agents) {
        await this.mailboxes.writeCopy(tx, {
          id,
          owner,
          folder: 'inbox',
          thread_id: thread,
          from: mail.from,
          to: mail.to,
          cc: mail.cc,
          bcc: [],
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          headers,
          attachments,
          snippet,
          received_at: receivedAt,
          received_ms: nowMs,
          read: false,
        });
        await this.events.append(tx, { type: 'email.received', agent_id: owner, data: { message_id: id, thread_id: thread, from: mail.from, subject: mail.subject } });
      }
      return thread;
    });
    return { message_id: id, thread_id: threadId };
  }
}
