import { timingSafeEqual } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import type { SmtpEdgeOptions } from '../../core/email/email-config.js';
import type { MailInbound } from '../../core/email/inbound.service.js';
import { EMAIL_MAX_BODY_BYTES } from '../../core/email/email.schema.js';
import { ApiError } from '../../core/shared/api-error.js';
import { dnsResolver } from './auth/dns-resolver.js';
import { MailAuthenticator } from './auth/mail-authenticator.js';
import type { Envelope, ReceiverPolicy } from './smtp-receiver/receiver-options.js';
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

/**
 * Checks a message's senders (SPF, DKIM, DMARC), then stores it with its verdict; with
 * `enforceDmarc`, a message failing DMARC whose domain asks `p=reject` is refused instead.
 */
async function checkedDelivery(inbound: MailInbound, authenticator: MailAuthenticator, enforceDmarc: boolean, bytes: Buffer, envelope: Envelope): Promise<string> {
  const checked = await authenticator.check(bytes, { ip: envelope.client.address, helo: envelope.client.helo, sender: envelope.from });
  if (enforceDmarc && checked.verdict.dmarc === 'fail' && checked.dmarcPolicy === 'reject') {
    return `550 5.7.1 Message rejected: DMARC policy of ${checked.verdict.from_domain} is reject and the message fails it`;
  }
  return inbound.deliverRaw(bytes, envelope.recipients, checked).then((accepted) => `250 2.0.0 OK: queued as ${accepted.message_id}`, deliveryFailure);
}

/** What the listener accepts: the service's agents as recipients, agent senders only when authenticated. */
function inboundPolicy(inbound: MailInbound, serviceDomain: string, options: SmtpListenOptions): ReceiverPolicy {
  const credentials = options.auth;
  const resolver = dnsResolver({
    ...(options.dnsServer ? { server: options.dnsServer } : {}),
    ...(options.dnsTimeoutMs !== undefined ? { timeoutMs: options.dnsTimeoutMs } : {}),
    ...(options.dnsCacheSeconds !== undefined ? { cacheSeconds: options.dnsCacheSeconds } : {}),
  });
  const authenticator = new MailAuthenticator(serviceDomain, resolver, options.dnsTimeoutMs);
  const enforceDmarc = options.enforceDmarc === true;
  return {
    ...(credentials ? { authenticate: (user: string, pass: string) => sameSecret(user, credentials.user) && sameSecret(pass, credentials.pass) } : {}),
    mailFrom: (address, user) => (address !== '' && user === null && inDomain(address, serviceDomain) ? `550 5.7.1 <${address}>: sending as an address of ${serviceDomain} needs an authenticated session` : null),
    rcptTo: async (address) => ((await inbound.hasMailbox(address)) ? null : `550 5.1.1 <${address}>: no such mailbox here`),
    message: (bytes, envelope) => checkedDelivery(inbound, authenticator, enforceDmarc, bytes, envelope),
  };
}

/**
 * The inbound mail edge: an SMTP server (the project's own receiver, `./smtp-receiver/`) that
 * accepts mail for the agents of a runtime and delivers it into their inboxes through `inbound`,
 * the same path as `POST /_sim/email/inbound` with `raw`. Unknown recipients are refused at RCPT
 * TO with 550 (no relaying). PIPELINING, 8BITMIME, SMTPUTF8, ENHANCEDSTATUSCODES, CHUNKING and
 * SIZE are announced, AUTH PLAIN LOGIN with credentials, STARTTLS with a certificate. Every
 * message is checked for SPF, DKIM and DMARC and keeps the verdict. A message is answered 250 only
 * once it is stored (durably, with a durable store).
 * @throws Error when the address cannot be listened on (in use, not permitted), or the certificate or key is not valid PEM
 */
export async function startSmtpListener(inbound: MailInbound, serviceDomain: string, options: SmtpListenOptions = {}): Promise<RunningSmtpServer> {
  if (options.requireTls && !options.tls) throw new Error('requireTls needs tls: a certificate and key for STARTTLS');
  return startSmtpReceiver(
    options.host ?? '127.0.0.1',
    options.port ?? 2525,
    {
      domain: serviceDomain,
      maxMessageBytes: options.maxMessageBytes ?? EMAIL_MAX_BODY_BYTES,
      idleSeconds: options.idleSeconds ?? 60,
      ...(options.maxMessagesPerMinute !== undefined ? { maxMessagesPerMinute: options.maxMessagesPerMinute } : {}),
      ...(options.tls ? { tls: createSecureContext({ cert: options.tls.cert, key: options.tls.key }), requireTls: options.requireTls === true } : {}),
    },
    inboundPolicy(inbound, serviceDomain, options),
  );
}
