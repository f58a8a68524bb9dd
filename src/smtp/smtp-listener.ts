import type { AddressInfo } from 'node:net';
import { EMAIL_MAX_BODY_BYTES } from '../core/email/email.schema.js';
import { ApiError } from '../core/shared/api-error.js';
import type { Runtime } from '../runtime/create-runtime.js';

/** Where and how the SMTP listener listens. */
export interface SmtpListenOptions {
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** Port; 0 picks a free one (default 2525). */
  port?: number;
  /** Largest message accepted, in bytes, announced as SIZE (default 35 MiB, as the API). */
  maxMessageBytes?: number;
  /** Seconds an idle connection is kept (default 60). */
  idleSeconds?: number;
}

/** A listening SMTP server. */
export interface RunningSmtpServer {
  host: string;
  port: number;
  /** Stops accepting connections and ends open ones (after at most a second). */
  close(): Promise<void>;
}

/** An Error that smtp-server answers with `code` and `message`. */
function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

/**
 * The inbound mail edge: a real SMTP server (smtp-server) that accepts mail for the agents of a
 * runtime and delivers it into their inboxes through `runtime.mail`, the same path as
 * `POST /_sim/email/inbound` with `raw`. Unknown recipients are refused at RCPT TO with 550 (no
 * relaying). Meant for loopback and trusted networks: no TLS, and AUTH, if a client insists on it,
 * accepts any credentials. smtp-server is loaded here, when a listener is started, not when the
 * package is imported.
 */
export async function listenSmtp(runtime: Runtime, options: SmtpListenOptions = {}): Promise<RunningSmtpServer> {
  const { SMTPServer } = await import('smtp-server');
  const host = options.host ?? '127.0.0.1';
  const maxBytes = options.maxMessageBytes ?? EMAIL_MAX_BODY_BYTES;
  const server = new SMTPServer({
    name: runtime.config.serviceDomain,
    banner: 'agent-services ESMTP',
    logger: false,
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    size: maxBytes,
    socketTimeout: (options.idleSeconds ?? 60) * 1000,
    closeTimeout: 1000,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username ?? 'anonymous' });
    },
    onRcptTo(address, _session, callback) {
      if (runtime.mail.hasMailbox(address.address)) callback();
      else callback(smtpError(550, `5.1.1 <${address.address}>: no such mailbox here`));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        // Past the limit smtp-server answers 552 itself; keep nothing more in memory meanwhile.
        if (!stream.sizeExceeded) chunks.push(chunk);
      });
      stream.once('error', (error) => callback(smtpError(451, `4.3.0 ${error.message}`)));
      stream.once('end', () => {
        if (stream.sizeExceeded) return callback(smtpError(552, `5.3.4 message over ${maxBytes} bytes`));
        const recipients = session.envelope.rcptTo.map((recipient) => recipient.address);
        runtime.mail.deliverRaw(Buffer.concat(chunks), recipients).then(
          (accepted) => callback(null, `2.0.0 OK: queued as ${accepted.message_id}`),
          (error: unknown) => {
            if (error instanceof ApiError && error.code === 'recipient_not_found') callback(smtpError(550, `5.1.1 ${error.message}`));
            else if (error instanceof ApiError && error.status === 400) callback(smtpError(554, `5.6.0 ${error.message}`));
            else callback(smtpError(451, '4.3.0 temporary failure, try again later'));
          },
        );
      });
    },
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 2525, host, () => {
      server.off('error', reject);
      // A broken client connection must not take the process down; smtp-server reports it here.
      server.on('error', () => {});
      const { port } = server.server.address() as AddressInfo;
      resolve({ host, port, close: () => new Promise<void>((done) => server.close(() => done())) });
    });
  });
}
