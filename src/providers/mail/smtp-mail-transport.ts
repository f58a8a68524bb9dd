import { Readable } from 'node:stream';
import type { Transporter } from 'nodemailer';
import type { DkimSigning } from './auth/dkim-signer.js';
import { MailTransportError, type MailTransport, type OutboundMail, type RecipientRefusal, type TransportOutcome } from '../../core/ports/mail-transport.js';

/** Where and how to reach the SMTP relay. */
export interface SmtpRelayOptions {
  host: string;
  port: number;
  /** TLS from the first byte (port 465); otherwise STARTTLS is used when the relay offers it. */
  secure?: boolean;
  auth?: { user: string; pass: string };
  /** Keeps a pool of connections open between messages (default true). */
  pool?: boolean;
  /** Refuse a relay whose certificate does not verify (default true). */
  rejectUnauthorized?: boolean;
  /** Seconds to wait for the relay before the hand-off fails (default 30). */
  timeoutSeconds?: number;
  /** Sign every message with DKIM (`d=` the service domain) before it leaves. */
  dkim?: DkimSigning;
}

/** The address part of what nodemailer reports as accepted or rejected. */
function addressOf(entry: unknown): string {
  if (typeof entry === 'string') return entry;
  return String((entry as { address?: unknown })?.address ?? '');
}

/** What nodemailer attaches to an error or an answer about the relay's replies. */
interface RelayReply {
  responseCode?: unknown;
  response?: unknown;
  recipient?: unknown;
  rejectedErrors?: unknown;
  message?: unknown;
}

/** The refusals nodemailer reports per recipient (`rejectedErrors`). */
function refusalsOf(errors: unknown): RecipientRefusal[] {
  if (!Array.isArray(errors)) return [];
  return errors.map((entry: RelayReply) => ({
    address: String(entry.recipient ?? ''),
    replyCode: typeof entry.responseCode === 'number' ? entry.responseCode : null,
    response: String(entry.response ?? entry.message ?? ''),
  }));
}

/**
 * The error of a failed hand-off with the relay's reply code: the code of the relay's answer, or of
 * the recipients' refusals when every one was refused (the most hopeful one: a 4xx among 5xx means
 * trying again), or none when the relay never answered (connection, timeout).
 */
export function transportErrorOf(error: unknown): MailTransportError {
  if (error instanceof MailTransportError) return error;
  const reply = (error ?? {}) as RelayReply;
  const message = String(reply.response ?? reply.message ?? error);
  if (typeof reply.responseCode === 'number') return new MailTransportError(reply.responseCode, message);
  const codes = refusalsOf(reply.rejectedErrors).flatMap((refusal) => (refusal.replyCode === null ? [] : [refusal.replyCode]));
  if (codes.length > 0) return new MailTransportError(Math.min(...codes), message);
  return new MailTransportError(null, message);
}

/**
 * Outbound mail through a real SMTP relay with nodemailer: the service's Message-ID, Date and
 * threading headers are kept, the envelope carries exactly the outside recipients (bcc included,
 * never in a header), and attachments are streamed from the blob store. With `dkim` every message
 * is DKIM-signed on its way out. nodemailer (and mailauth's signer) are loaded and the transporter
 * made by the first send, not when the runtime starts.
 */
export class SmtpMailTransport implements MailTransport {
  private transporter: Promise<Transporter> | undefined;
  private closed = false;

  constructor(private readonly options: SmtpRelayOptions) {}

  /** The transporter, made once on first use. */
  private transporterOf(): Promise<Transporter> {
    const signer = this.options.dkim ? import('./auth/dkim-signer.js') : Promise.resolve(null);
    return (this.transporter ??= Promise.all([import('nodemailer'), signer]).then(([{ default: nodemailer }, signing]) => {
      const transporter = nodemailer.createTransport(this.transportOptions() as Parameters<typeof nodemailer.createTransport>[0]);
      const dkim = this.options.dkim;
      // nodemailer's own signer is RSA-only: mailauth's signs the composed message as it streams out.
      if (dkim && signing) {
        transporter.use('stream', (mail, done) => {
          mail.message.processFunc((input) => input.pipe(signing.dkimSignStream(dkim)));
          done();
        });
      }
      // Closed while nodemailer was loading: the pool must not stay open.
      if (this.closed) transporter.close();
      return transporter;
    }));
  }

  private transportOptions(): Record<string, unknown> {
    const options = this.options;
    const timeout = (options.timeoutSeconds ?? 30) * 1000;
    return {
      host: options.host,
      port: options.port,
      secure: options.secure ?? false,
      ...(options.auth ? { auth: options.auth } : {}),
      ...((options.pool ?? true) ? { pool: true } : {}),
      tls: { rejectUnauthorized: options.rejectUnauthorized ?? true },
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
      disableFileAccess: true,
      disableUrlAccess: true,
    };
  }

  /**
   * A transport for `smtp://[user:pass@]host[:port]` (STARTTLS when offered) or
   * `smtps://...` (TLS, port 465 by default).
   * @throws TypeError for another scheme
   */
  static fromUrl(url: string, dkim?: DkimSigning): SmtpMailTransport {
    const parsed = new URL(url);
    if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') throw new TypeError(`relay URL must be smtp:// or smtps://, got ${parsed.protocol}`);
    const secure = parsed.protocol === 'smtps:';
    return new SmtpMailTransport({
      host: parsed.hostname,
      port: parsed.port ? Number(parsed.port) : secure ? 465 : 587,
      secure,
      ...(parsed.username ? { auth: { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) } } : {}),
      ...(dkim ? { dkim } : {}),
    });
  }

  /** @throws MailTransportError with the relay's reply code (none when it could not be reached) */
  async send(mail: OutboundMail): Promise<TransportOutcome> {
    const transporter = await this.transporterOf();
    const info = (await transporter
      .sendMail({
        envelope: { from: mail.envelope.from, to: mail.envelope.to },
        messageId: mail.messageId,
        date: new Date(mail.date),
        from: mail.from,
        to: mail.to,
        ...(mail.cc.length > 0 ? { cc: mail.cc } : {}),
        subject: mail.subject,
        ...(mail.text === null ? {} : { text: mail.text }),
        ...(mail.html === null ? {} : { html: mail.html }),
        ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo } : {}),
        ...(mail.references ? { references: mail.references } : {}),
        attachments: mail.attachments.map((attachment) => ({
          filename: attachment.filename,
          contentType: attachment.contentType,
          content: Readable.from(attachment.open()),
        })),
      })
      .catch((error: unknown) => {
        throw transportErrorOf(error);
      })) as { accepted?: unknown[]; rejected?: unknown[]; response?: string; rejectedErrors?: unknown };
    return {
      accepted: (info.accepted ?? []).map(addressOf),
      rejected: (info.rejected ?? []).map(addressOf),
      response: info.response ?? '',
      refusals: refusalsOf(info.rejectedErrors),
    };
  }

  /**
   * Readiness: connects to the relay, reads its greeting, says EHLO and authenticates (nodemailer's
   * `verify`), on a connection of its own so the pool is left alone.
   * @throws Error when the relay cannot be reached or refuses the login
   */
  async ready(signal: AbortSignal): Promise<void> {
    const { default: nodemailer } = await import('nodemailer');
    const probe = nodemailer.createTransport({ ...this.transportOptions(), pool: false } as Parameters<typeof nodemailer.createTransport>[0]);
    try {
      await new Promise<void>((resolve, reject) => {
        const abort = () => reject(new Error('the relay did not answer in time'));
        if (signal.aborted) return abort();
        signal.addEventListener('abort', abort, { once: true });
        probe
          .verify()
          .then(
            () => resolve(),
            (error: unknown) => reject(error instanceof Error ? error : new Error(String(error))),
          )
          .finally(() => signal.removeEventListener('abort', abort));
      });
    } finally {
      probe.close();
    }
  }

  /** Closes pooled connections. */
  close(): void {
    this.closed = true;
    void this.transporter?.then((transporter) => transporter.close());
  }
}
