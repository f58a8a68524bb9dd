import { Readable } from 'node:stream';
import type { Transporter } from 'nodemailer';
import type { MailTransport, OutboundMail, TransportOutcome } from '../../core/ports/mail-transport.js';

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
}

/** The address part of what nodemailer reports as accepted or rejected. */
function addressOf(entry: unknown): string {
  if (typeof entry === 'string') return entry;
  return String((entry as { address?: unknown })?.address ?? '');
}

/**
 * Outbound mail through a real SMTP relay with nodemailer: the service's Message-ID, Date and
 * threading headers are kept, the envelope carries exactly the outside recipients (bcc included,
 * never in a header), and attachments are streamed from the blob store. nodemailer is loaded and
 * the transporter made by the first send, not when the runtime starts.
 */
export class SmtpMailTransport implements MailTransport {
  private transporter: Promise<Transporter> | undefined;
  private closed = false;

  constructor(private readonly options: SmtpRelayOptions) {}

  /** The transporter, made once on first use. */
  private transporterOf(): Promise<Transporter> {
    return (this.transporter ??= import('nodemailer').then(({ default: nodemailer }) => {
      const transporter = nodemailer.createTransport(this.transportOptions() as Parameters<typeof nodemailer.createTransport>[0]);
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
  static fromUrl(url: string): SmtpMailTransport {
    const parsed = new URL(url);
    if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') throw new TypeError(`relay URL must be smtp:// or smtps://, got ${parsed.protocol}`);
    const secure = parsed.protocol === 'smtps:';
    return new SmtpMailTransport({
      host: parsed.hostname,
      port: parsed.port ? Number(parsed.port) : secure ? 465 : 587,
      secure,
      ...(parsed.username ? { auth: { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) } } : {}),
    });
  }

  async send(mail: OutboundMail): Promise<TransportOutcome> {
    const transporter = await this.transporterOf();
    const info = (await transporter.sendMail({
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
    })) as { accepted?: unknown[]; rejected?: unknown[]; response?: string };
    return {
      accepted: (info.accepted ?? []).map(addressOf),
      rejected: (info.rejected ?? []).map(addressOf),
      response: info.response ?? '',
    };
  }

  /** Closes pooled connections. */
  close(): void {
    this.closed = true;
    void this.transporter?.then((transporter) => transporter.close());
  }
}
