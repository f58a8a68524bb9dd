import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseCommandLine, parseMailPath } from './command-line.js';
import { DotBodyReader } from './dot-body-reader.js';
import { checkMailParams } from './mail-params.js';
import { MessageBuffer } from './message-buffer.js';
import { RateWindow } from './rate-window.js';
import type { ReceiverOptions, ReceiverPolicy } from './receiver-options.js';
import { REPLY, type FixedReplies } from './replies.js';
import { SaslExchange, type SaslOutcome } from './sasl-exchange.js';

/** What every session of one receiver shares. */
export interface SessionContext {
  options: ReceiverOptions;
  policy: ReceiverPolicy;
  replies: FixedReplies;
  maxRecipients: number;
  maxErrors: number;
}

const CR = 13;
const LF = 10;
/** Longest command line, without its line end (RFC 5321 asks for 512 at least). */
const MAX_LINE = 4096;
/**
 * Bytes held unread while a message is stored, or replies the client has not read; past either the
 * socket is paused and TCP pushes back, so a client that floods costs no more memory than this.
 */
const MAX_HELD = 64 * 1024;

// What the next bytes from the client are.
const COMMAND = 0;
const DATA = 1;
const BDAT = 2;
const AUTH = 3;
const CLOSED = 4;

/**
 * One SMTP connection, server side: reads raw bytes, splits command lines at LF (CRLF or a bare
 * LF), answers every complete command of a segment in order and writes the replies of a segment in
 * one write (PIPELINING). Bytes after `DATA`'s 354 or inside a `BDAT` chunk are message, never
 * commands. While a message is being stored, or an asynchronous policy decides a recipient, nothing
 * further is read into commands, so no reply overtakes the one being waited for, and the 250 that
 * answers a message is sent only once the store has it.
 */
export class SmtpSession {
  private mode = COMMAND;
  /** Bytes received and not yet consumed. */
  private pending: Buffer | null = null;
  /** Replies not yet written. */
  private out = '';
  /** Waiting for the store to take a message, or for the policy to decide a recipient. */
  private busy = false;
  /** Skipping the rest of a command line that was too long. */
  private discarding = false;
  private closing = false;
  private greeted = false;
  private user: string | null = null;
  private errors = 0;
  private from: string | null = null;
  private recipients: string[] = [];
  private message: MessageBuffer | null = null;
  private dot: DotBodyReader | null = null;
  /** The BDAT chunk being read: bytes still to come, whether it is the last, its refusal. */
  private chunkLeft = 0;
  private chunkLast = false;
  private chunkRefusal: string | null = null;
  private sasl: SaslExchange | null = null;
  /** This connection's messages of the last minute, with `maxMessagesPerMinute`. */
  private readonly rate: RateWindow | null;

  /** Greets the client on `socket` and serves it until it quits or the socket closes. */
  constructor(
    private readonly socket: Socket,
    private readonly context: SessionContext,
    onClose: (session: SmtpSession) => void,
  ) {
    const perMinute = context.options.maxMessagesPerMinute;
    this.rate = perMinute === undefined ? null : new RateWindow(perMinute, 60_000);
    socket.setNoDelay(true);
    socket.setTimeout(context.options.idleSeconds * 1000);
    // Anonymous closures: esbuild's keepNames (tsx) gives a named one a defineProperty per session.
    socket.on('data', (chunk: Buffer) => this.received(chunk));
    socket.on('timeout', () => this.idle());
    socket.on('drain', () => this.throttle());
    socket.on('error', () => socket.destroy());
    socket.once('close', () => {
      this.mode = CLOSED;
      onClose(this);
    });
    socket.write(context.replies.greeting);
  }

  /** Ends the session for a server shutdown: at once when idle, after the message being stored otherwise. */
  shutdown(): void {
    this.closing = true;
    if (this.idleNow()) this.end(this.context.replies.shutdown);
  }

  /** Closes the connection whatever it is doing. */
  destroy(): void {
    this.socket.destroy();
  }

  private received(chunk: Buffer): void {
    if (this.mode === CLOSED) return;
    this.pending = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    if (!this.busy) this.guarded();
    this.throttle();
  }

  /** Runs, and ends the session rather than the process when the policy throws. */
  private guarded(): void {
    try {
      this.run();
    } catch {
      this.end(REPLY.internalError);
    }
  }

  /** Pauses reading while too much waits on either side (see MAX_HELD), and resumes it after. */
  private throttle(): void {
    const hold = (this.busy && this.pending !== null && this.pending.length > MAX_HELD) || this.socket.writableLength > MAX_HELD;
    if (hold === this.socket.isPaused()) return;
    if (hold) this.socket.pause();
    else this.socket.resume();
  }

  private idle(): void {
    // A last reply the client does not read must not keep the connection.
    if (this.mode === CLOSED) this.socket.destroy();
    // Storing a message is not idleness: the next write restarts the timer.
    else if (!this.busy) this.end(this.context.replies.timeout);
  }

  private idleNow(): boolean {
    return !this.busy && (this.mode === COMMAND || this.mode === AUTH);
  }

  /** Consumes what is pending as far as it can, then writes the replies. */
  private run(): void {
    const buffer = this.pending;
    this.pending = null;
    if (buffer) {
      const at = this.consume(buffer);
      if (at < buffer.length && this.mode !== CLOSED) this.pending = at === 0 ? buffer : buffer.subarray(at);
    }
    if (this.closing && this.idleNow()) this.end(this.context.replies.shutdown);
    this.flush();
  }

  /** Reads commands and message bytes from `buffer`; answers how far it got. */
  private consume(buffer: Buffer): number {
    const length = buffer.length;
    let at = 0;
    while (at < length && !this.busy && this.mode !== CLOSED) {
      if (this.mode === DATA) {
        const end = this.dot!.read(buffer, at);
        if (end < 0) return length;
        at = end;
        this.endOfData();
      } else if (this.mode === BDAT) {
        const take = Math.min(this.chunkLeft, length - at);
        this.message?.add(buffer.subarray(at, at + take));
        at += take;
        this.chunkLeft -= take;
        if (this.chunkLeft === 0) this.endOfChunk();
      } else {
        const lf = buffer.indexOf(LF, at);
        if (lf < 0) {
          if (this.discarding || length - at > MAX_LINE + 1) {
            this.discarding = true;
            return length;
          }
          return at;
        }
        const end = lf > at && buffer[lf - 1] === CR ? lf - 1 : lf;
        if (this.discarding || end - at > MAX_LINE) {
          this.discarding = false;
          this.mode = COMMAND;
          this.sasl = null;
          this.error(REPLY.tooLong);
        } else if (this.mode === AUTH) this.authResponse(buffer.toString('utf8', at, end));
        else this.command(buffer.toString('utf8', at, end));
        at = lf + 1;
      }
    }
    return at;
  }

  private command(line: string): void {
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
    this.reply(verb === 'EHLO' ? this.context.replies.ehlo : this.context.replies.helo);
  }

  private mail(argument: string): void {
    if (!this.greeted) return this.error(REPLY.heloFirst);
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

  private endOfData(): void {
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

  private endOfChunk(): void {
    this.mode = COMMAND;
    if (this.chunkRefusal !== null) return this.error(this.chunkRefusal);
    if (this.chunkLast) return this.finish();
    if (this.message!.overLimit) return this.reply(this.context.replies.tooBig);
    this.reply(`250 2.0.0 ${this.message!.size} octets received\r\n`);
  }

  /** The message is complete: refuses it when too large, or hands it to the store and waits. */
  private finish(): void {
    const message = this.message!;
    const envelope = { from: this.from!, recipients: this.recipients, user: this.user };
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
    if (this.user !== null) return this.error(REPLY.authAgain);
    if (this.from !== null) return this.error(REPLY.authInTransaction);
    const exchange = SaslExchange.start(argument);
    if (!exchange) return this.error(REPLY.authUnknown);
    this.sasl = exchange;
    this.step(exchange.initial());
  }

  private authResponse(line: string): void {
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

  private reply(reply: string): void {
    this.out += reply;
  }

  /** Answers a command that was wrong; past the limit of errors, ends the session. */
  private error(reply: string): void {
    this.out += reply;
    if (++this.errors >= this.context.maxErrors) this.end(this.context.replies.tooManyErrors);
  }

  private flush(): void {
    if (this.out === '') return;
    if (this.socket.writable) this.socket.write(this.out);
    this.out = '';
  }

  /**
   * Sends the last reply and closes: at once when the reply is already with the kernel (waiting
   * for the client's end costs a read and a shutdown per message, and clients such as
   * `smtp-source` close without reading the 221), after the write otherwise.
   */
  private end(reply: string): void {
    this.out += reply;
    this.mode = CLOSED;
    this.pending = null;
    this.flush();
    if (this.socket.writableLength === 0) this.socket.destroy();
    else this.socket.destroySoon();
  }
}
