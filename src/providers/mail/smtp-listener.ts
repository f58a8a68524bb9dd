import { timingSafeEqual } from 'node:crypto';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { SMTPServer as SMTPServerType, SMTPServerOptions } from 'smtp-server';
import type { SmtpEdgeOptions } from '../../core/email/email-config.js';
import type { MailInbound } from '../../core/email/inbound.service.js';
import { EMAIL_MAX_BODY_BYTES } from '../../core/email/email.schema.js';
import { ApiError } from '../../core/shared/api-error.js';

/** Where and how the SMTP listener listens (`RuntimeOptions.email.smtp`, CLI `--smtp-*`). */
export type SmtpListenOptions = SmtpEdgeOptions;

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

/**
 * smtp-server with a greeting at once and a plain accept. smtp-server waits a fixed 100 ms before
 * every greeting (to catch clients that talk too early, a spam heuristic for the open Internet)
 * and looks the client's address up in reverse DNS first; with one connection per message, as
 * MTAs and `smtp-source` send, that wait was the whole cost of a message. Its accept path guards
 * each socket for a PROXY header or a TLS handshake (this listener expects neither), draws the
 * session id from the system's random generator (a syscall per connection under gVisor) and
 * hands the socket over one event-loop turn later; here a socket goes straight to `connect` with
 * a counter as its id, which is all the id is needed for (the rate limit's key), and with the
 * listening address as its local address (read from the socket it costs a syscall). The
 * connection is made as smtp-server makes it, only its `init` greets without the wait and the
 * lookup, and QUIT closes the socket as soon as the 221 is written.
 */
async function promptServer(options: SMTPServerOptions): Promise<SMTPServerType> {
  const [{ SMTPServer }, { SMTPConnection }] = await Promise.all([import('smtp-server'), import('smtp-server/lib/smtp-connection.js')]);
  class PromptConnection extends SMTPConnection {
    override init(): void {
      this._setListeners(() => this.connectionReady());
    }

    /**
     * QUIT as smtp-server answers it, then the socket is closed at once when the 221 is already
     * with the kernel: the session is over, and waiting for the client's end of the connection
     * costs a shutdown and a read per message, and an error per message from clients that close
     * without reading the 221 (smtp-source does; the read then fails with ECONNRESET).
     */
    override handler_QUIT(command: Buffer, callback: () => void): void {
      const socket = this._socket;
      super.handler_QUIT(command, callback);
      if (socket.writableLength === 0) socket.destroy();
    }
  }
  class PromptServer extends SMTPServer {
    private sessions = 0;
    /** The listening address, read once: a connection to a specific address arrives on it. */
    private local: { localAddress: string; localPort: number } | undefined;
    constructor(serverOptions: SMTPServerOptions) {
      super(serverOptions);
      this.server.removeAllListeners('connection');
      this.server.on('connection', (socket: Socket) => {
        if (!this.local) {
          const { address, port } = this.server.address() as AddressInfo;
          // On a wildcard address each connection has its own local address: asked per socket.
          this.local = address === '0.0.0.0' || address === '::' ? { localAddress: '', localPort: 0 } : { localAddress: address, localPort: port };
        }
        this.connect(socket, { id: `s${(++this.sessions).toString(36)}`, ...(this.local.localAddress ? this.local : {}) });
      });
    }
    override connect(socket: Socket, socketOptions?: ConstructorParameters<typeof SMTPConnection>[2]): void {
      const connection = new PromptConnection(this, socket, socketOptions);
      this.connections.add(connection);
      connection.on('error', (error: Error) => this._onError(error));
      connection.on('connect', (data: Parameters<SMTPServerType['_onClientConnect']>[0]) => this._onClientConnect(data));
      connection.init();
    }
  }
  return new PromptServer({ ...options, disableReverseLookup: true });
}

/**
 * The inbound mail edge: a real SMTP server (smtp-server) that accepts mail for the agents of a
 * runtime and delivers it into their inboxes through `inbound`, the same path as
 * `POST /_sim/email/inbound` with `raw`. Unknown recipients are refused at RCPT TO with 550 (no
 * relaying). PIPELINING, 8BITMIME, SMTPUTF8 and SIZE are announced; there is no STARTTLS (meant
 * for loopback and trusted networks) and no CHUNKING (smtp-server has no BDAT). A message is
 * answered 250 only once it is stored (durably, with a durable store). smtp-server is loaded here,
 * when a listener starts, not when the package is imported.
 * @throws Error when the address cannot be listened on (in use, not permitted)
 */
export async function startSmtpListener(inbound: MailInbound, serviceDomain: string, options: SmtpListenOptions = {}): Promise<RunningSmtpServer> {
  const host = options.host ?? '127.0.0.1';
  const maxBytes = options.maxMessageBytes ?? EMAIL_MAX_BODY_BYTES;
  const credentials = options.auth;
  const perMinute = options.maxMessagesPerMinute;
  /** Start times of the messages of each open connection within the last minute. */
  const recent = new Map<string, number[]>();
  const server = await promptServer({
    name: serviceDomain,
    banner: 'agent-services ESMTP',
    logger: false,
    authOptional: true,
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    disabledCommands: credentials ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    size: maxBytes,
    socketTimeout: (options.idleSeconds ?? 60) * 1000,
    closeTimeout: 1000,
    onAuth(auth, _session, callback) {
      if (credentials && sameSecret(auth.username ?? '', credentials.user) && sameSecret(auth.password ?? '', credentials.pass)) callback(null, { user: credentials.user });
      else callback(smtpError(535, '5.7.8 authentication credentials invalid'));
    },
    onMailFrom(address, session, callback) {
      if (address.address !== '' && inDomain(address.address, serviceDomain) && !session.user) {
        return callback(smtpError(550, `5.7.1 <${address.address}>: sending as an address of ${serviceDomain} needs an authenticated session`));
      }
      if (perMinute !== undefined) {
        const now = performance.now();
        const times = (recent.get(session.id) ?? []).filter((at) => now - at < 60_000);
        if (times.length >= perMinute) {
          recent.set(session.id, times);
          return callback(smtpError(451, `4.7.1 more than ${perMinute} messages a minute on this connection; try again later`));
        }
        times.push(now);
        recent.set(session.id, times);
      }
      callback();
    },
    onRcptTo(address, _session, callback) {
      if (inbound.hasMailbox(address.address)) callback();
      else callback(smtpError(550, `5.1.1 <${address.address}>: no such mailbox here`));
    },
    onClose(session) {
      recent.delete(session.id);
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
        inbound.deliverRaw(Buffer.concat(chunks), recipients).then(
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
