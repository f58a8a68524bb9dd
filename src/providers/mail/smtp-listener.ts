import { timingSafeEqual } from 'node:crypto';
import type { SmtpEdgeOptions } from '../../core/email/email-config.js';
import type { MailInbound } from '../../core/email/inbound.service.js';
import { EMAIL_MAX_BODY_BYTES } from '../../core/email/email.schema.js';
import { ApiError } from '../../core/shared/api-error.js';
import type { ReceiverPolicy } from './smtp-receiver/receiver-options.js';
import { startSmtpReceiver, type RunningReceiver } from './smtp-receiver/smtp-receiver.js';

/** Where and how the SMTP listener listens (`RuntimeOptions.email.smtp`, CLI `--smtp-*`). */
export type SmtpListenOptions = SmtpEdgeOptions;

/** A listening SMTP server. */
export type RunningSmtpServer = RunningReceiver;

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether `address` is in `domain` or under it. */
function inDomain(address: string, domain: string): boolean {
  const host = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
  const own = domain.toLowerCase();
  return address.includes('@') && (host === own || host.endsWith(`.${own}`));
}

/** The SMTP reply to a delivery that failed. */
function deliveryFailure(error: unknown): string {
  if (error instanceof ApiError && error.code === 'recipient_not_found') return `550 5.1.1 ${error.message}`;
  if (error instanceof ApiError && error.status === 400) return `554 5.6.0 ${error.message}`;
  return '451 4.3.0 temporary failure, try again later';
}

/** What the listener accepts: the service's agents as recipients, agent senders only when authenticated. */
function inboundPolicy(inbound: MailInbound, serviceDomain: string, credentials: SmtpEdgeOptions['auth']): ReceiverPolicy {
  return {
    ...(credentials ? { authenticate: (user: string, pass: string) => sameSecret(user, credentials.user) && sameSecret(pass, credentials.pass) } : {}),
    mailFrom: (address, user) => (address !== '' && user === null && inDomain(address, serviceDomain) ? `550 5.7.1 <${address}>: sending as an address of ${serviceDomain} needs an authenticated session` : null),
    rcptTo: async (address) => ((await inbound.hasMailbox(address)) ? null : `550 5.1.1 <${address}>: no such mailbox here`),
    message: (bytes, envelope) => inbound.deliverRaw(bytes, envelope.recipients).then((accepted) => `250 2.0.0 OK: queued as ${accepted.message_id}`, deliveryFailure),
  };
}

/**
 * The inbound mail edge: an SMTP server (the project's own receiver, `./smtp-receiver/`) that
 * accepts mail for the agents of a runtime and delivers it into their inboxes through `inbound`,
 * the same path as `POST /_sim/email/inbound` with `raw`. Unknown recipients are refused at RCPT
 * TO with 550 (no relaying). PIPELINING, 8BITMIME, SMTPUTF8, ENHANCEDSTATUSCODES, CHUNKING and
 * SIZE are announced, AUTH PLAIN LOGIN with credentials; there is no STARTTLS (meant for loopback
 * and trusted networks). A message is answered 250 only once it is stored (durably, with a
 * durable store).
 * @throws Error when the address cannot be listened on (in use, not permitted)
 */
export function startSmtpListener(inbound: MailInbound, serviceDomain: string, options: SmtpListenOptions = {}): Promise<RunningSmtpServer> {
  return startSmtpReceiver(
    options.host ?? '127.0.0.1',
    options.port ?? 2525,
    {
      domain: serviceDomain,
      maxMessageBytes: options.maxMessageBytes ?? EMAIL_MAX_BODY_BYTES,
      idleSeconds: options.idleSeconds ?? 60,
      ...(options.maxMessagesPerMinute !== undefined ? { maxMessagesPerMinute: options.maxMessagesPerMinute } : {}),
    },
    inboundPolicy(inbound, serviceDomain, options.auth),
  );
}
