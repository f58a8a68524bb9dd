import { performance } from 'node:perf_hooks';
import type { Socket } from 'node:net';
import { parseCommandLine, parseMailPath } from './command-line.js';
import { DotBodyReader } from './dot-body-reader.js';
import { checkMailParams } from './mail-params.js';
import { MessageBuffer } from './message-buffer.js';
import { RateWindow } from './rate-window.js';
import { REPLY } from './replies.js';
import { SaslExchange, type SaslOutcome } from './sasl-exchange.js';
import { AUTH, BDAT, CLOSED, COMMAND, DATA, SmtpConnection, UPGRADING, type SessionContext } from './smtp-connection.js';

export type { SessionContext } from './smtp-connection.js';

/**
 * One SMTP connection's protocol: the commands (HELO/EHLO, STARTTLS, AUTH, MAIL, RCPT, DATA,
 * BDAT, ...) and the state they build, over the bytes, replies and flow control of
 * {@link SmtpConnection}. The 250 that answers a message is sent only once the store has it.
 */
export class SmtpSession extends SmtpConnection {
  private greeted = false;
  /** The name the client gave in HELO or EHLO. */
  private helo = '';
  private user: string | null = null;
  private from: string | null = null;
  private recipients: string[] = [];
  /** Whether the BDAT chunk being read is the last, and its refusal. */
  private chunkLast = false;
  private chunkRefusal: string | null = null;
  private sasl: SaslExchange | null = null;
  /** This connection's messages of the last minute, with `maxMessagesPerMinute`. */
  private readonly rate: RateWindow | null;

  /** Greets the client on `socket` and serves it until it quits or the socket closes. */
  constructor(socket: Socket, context: SessionContext, onClose: (session: SmtpSession) => void) {
    super(socket, context, onClose as (session: SmtpConnection) => void);
    const perMinute = context.options.maxMessagesPerMinute;
    this.rate = perMinute === undefined ? null : new RateWindow(perMinute, 60_000);
  }

  protected lineTooLong(): void {
    this.mode = COMMAND;
    this.sasl = null;
    this.error(REPLY.tooLong);
  }

  protected command(line: string): void {
    const { verb, argument } = parseCommandLine(line);
    switch (verb) {
      case 'EHLO':
      case 'HELO':
        return this.hello(verb, argument);
      case 'MAIL':
        return this.mail(argument);
      case 'RCPT':
        return this.rcpt(argument);
      case 'DATA':
        return this.data();
      case 'BDAT':
        return this.bdat(argument);
      case 'RSET':
        this.reset();
        return this.reply(REPLY.ok);
      case 'NOOP':
        return this.reply(REPLY.ok);
      case 'VRFY':
        return this.reply(REPLY.vrfy);
      case 'HELP':
        return this.reply(REPLY.help);
      case 'QUIT':
        return this.end(REPLY.bye);
      case 'AUTH':
        return this.auth(argument);
      case 'STARTTLS':
        return this.startTls(argument);
      case 'EXPN':
      case 'ETRN':
      case 'TURN':
        return this.error(REPLY.unsupported);
      default:
        return this.error(REPLY.unknown);
    }
  }

  private hello(verb: string, argument: string): void {
    if (argument === '') return this.error(REPLY.heloSyntax);
    this.reset();
    this.greeted = true;
    this.helo = argument;
    const { replies } = this.context;
    this.reply(verb === 'EHLO' ? (this.tls ? replies.ehloTls : replies.ehlo) : replies.helo);
  }

  /** STARTTLS: answers 220 and starts over in TLS, forgetting HELO, AUTH and any transaction (RFC 3207 §4.2). */
  private startTls(argument: string): void {
    if (!this.context.options.tls) return this.error(REPLY.unsupported);
    if (this.tls) return this.error(REPLY.tlsActive);
    if (argument !== '') return this.error(REPLY.tlsSyntax);
    this.reset();
    this.greeted = false;
    this.helo = '';
    this.user = null;
    this.reply(REPLY.tlsReady);
    this.mode = UPGRADING;
  }

  /** Whether a command that needs TLS must wait for STARTTLS (`requireTls`). */
  private needsTls(): boolean {
    return this.context.options.requireTls === true && !this.tls;
  }

  private mail(argument: string): void {
    if (!this.greeted) return this.error(REPLY.heloFirst);
    if (this.needsTls()) return this.error(REPLY.tlsRequired);
    if (this.from !== null) return this.error(REPLY.nestedMail);
    const path = parseMailPath(argument, 'FROM');
    if (!path) return this.error(REPLY.mailSyntax);
    if (path.address !== '' && !path.address.includes('@')) return this.error(REPLY.badSender);
    const paramsRefusal = checkMailParams(path.params, this.context.options.maxMessageBytes, this.context.replies.tooBig);
    if (paramsRefusal) return paramsRefusal.error ? this.error(paramsRefusal.reply) : this.reply(paramsRefusal.reply);
    const refusal = this.context.policy.mailFrom(path.address, this.user);
    if (refusal !== null) return this.reply(`${refusal}\r\n`);
    if (this.rate && !this.rate.take(performance.now())) return this.reply(this.context.replies.rateLimited);
    this.from = path.address;
    this.reply(REPLY.senderOk);
  }

  private rcpt(argument: string): void {
    if (this.from === null) return this.error(REPLY.needMail);
    const path = parseMailPath(argument, 'TO');
    if (!path) return this.error(REPLY.rcptSyntax);
    if (path.address === '') return this.error(REPLY.badRecipient);
    if (path.params.size > 0) return this.error(REPLY.badParameter);
    if (this.recipients.length >= this.context.maxRecipients) return this.reply(REPLY.tooManyRecipients);
    const refusal = this.context.policy.rcptTo(path.address);
    if (refusal === null || typeof refusal === 'string') return this.recipient(path.address, refusal);
    // An asynchronous decision (a store lookup): read nothing further until it is known.
    this.busy = true;
    refusal.then(
      (decided) => {
        this.busy = false;
        if (this.mode === CLOSED) return;
        this.recipient(path.address, decided);
        this.guarded();
        this.throttle();
      },
      () => {
        this.busy = false;
        if (this.mode !== CLOSED) this.end(REPLY.internalError);
      },
    );
  }

  /** Takes `address` as a recipient, or answers the policy's refusal of it. */
  private recipient(address: string, refusal: string | null): void {
    if (refusal !== null) return this.reply(`${refusal}\r\n`);
    this.recipients.push(address);
    this.reply(REPLY.recipientOk);
  }

  /** The refusal of a message command in the current state, or null when a message may come. */
  private messageRefusal(): string | null {
    if (!this.greeted) return REPLY.heloFirst;
    if (this.from === null) return REPLY.needMail;
    return this.recipients.length === 0 ? REPLY.needRecipient : null;
  }

  private data(): void {
    const refusal = this.messageRefusal();
    if (refusal !== null) return this.error(refusal);
    if (this.message) return this.error(REPLY.mixedBody);
    this.message = new MessageBuffer(this.context.options.maxMessageBytes);
    this.dot = new DotBodyReader(this.message);
    this.mode = DATA;
    this.reply(REPLY.startData);
  }

  protected endOfData(): void {
    this.mode = COMMAND;
    this.finish();
  }

  private bdat(argument: string): void {
    const match = /^(\d{1,15})(?: +(LAST))? *$/i.exec(argument);
    if (!match) return this.error(REPLY.bdatSyntax);
    // A refused chunk is still read to its end, so that its bytes are not taken for commands.
    this.chunkRefusal = this.messageRefusal();
    if (this.chunkRefusal === null && !this.message) this.message = new MessageBuffer(this.context.options.maxMessageBytes);
    this.chunkLeft = Number(match[1]);
    this.chunkLast = match[2] !== undefined;
    this.mode = BDAT;
    if (this.chunkLeft === 0) this.endOfChunk();
  }

  protected endOfChunk(): void {
    this.mode = COMMAND;
    if (this.chunkRefusal !== null) return this.error(this.chunkRefusal);
    if (this.chunkLast) return this.finish();
    if (this.message!.overLimit) return this.reply(this.context.replies.tooBig);
    this.reply(`250 2.0.0 ${this.message!.size} octets received\r\n`);
  }

  /** The message is complete: refuses it when too large, or hands it to the store and waits. */
  private finish(): void {
    const message = this.message!;
    const envelope = { from: this.from!, recipients: this.recipients, user: this.user, client: { address: this.socket.remoteAddress ?? '', helo: this.helo }, tls: this.tls };
    this.reset();
    if (message.overLimit) return this.reply(this.context.replies.tooBig);
    this.busy = true;
    let stored: Promise<string>;
    try {
      stored = this.context.policy.message(message.bytes(), envelope);
    } catch (error) {
      stored = Promise.reject(error);
    }
    stored.then(
      (reply) => this.answered(`${reply}\r\n`),
      () => this.answered(REPLY.storeFailed),
    );
  }

  private answered(reply: string): void {
    this.busy = false;
    if (this.mode === CLOSED) return;
    this.reply(reply);
    this.guarded();
    this.throttle();
  }

  private auth(argument: string): void {
    const { authenticate } = this.context.policy;
    if (!authenticate) return this.error(REPLY.unsupported);
    if (!this.greeted) return this.error(REPLY.heloFirst);
    // Credentials never cross the network in clear where TLS is required.
    if (this.needsTls()) return this.error(REPLY.tlsRequired);
    if (this.user !== null) return this.error(REPLY.authAgain);
    if (this.from !== null) return this.error(REPLY.authInTransaction);
    const exchange = SaslExchange.start(argument);
    if (!exchange) return this.error(REPLY.authUnknown);
    this.sasl = exchange;
    this.step(exchange.initial());
  }

  protected authResponse(line: string): void {
    this.mode = COMMAND;
    this.step(this.sasl!.respond(line));
  }

  /** Acts on the outcome of one step of an AUTH exchange. */
  private step(outcome: SaslOutcome): void {
    if (typeof outcome === 'string') {
      this.mode = AUTH;
      return this.reply(outcome);
    }
    this.sasl = null;
    if ('refusal' in outcome) return this.error(outcome.refusal);
    if (!this.context.policy.authenticate!(outcome.user, outcome.pass)) return this.error(REPLY.authFailed);
    this.user = outcome.user;
    this.reply(REPLY.authOk);
  }

  private reset(): void {
    this.from = null;
    this.recipients = [];
    this.message = null;
    this.dot = null;
  }
}
