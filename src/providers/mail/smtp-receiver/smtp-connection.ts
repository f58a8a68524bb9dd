import type { Socket } from 'node:net';
import type { DotBodyReader } from './dot-body-reader.js';
import type { MessageBuffer } from './message-buffer.js';
import type { ReceiverOptions, ReceiverPolicy } from './receiver-options.js';
import { REPLY, type FixedReplies } from './replies.js';
import { upgradeToTls } from './tls-upgrade.js';

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
export const COMMAND = 0;
export const DATA = 1;
export const BDAT = 2;
export const AUTH = 3;
export const CLOSED = 4;
/** After STARTTLS's 220: nothing more is read in clear; the TLS handshake comes next. */
export const UPGRADING = 5;

/**
 * The byte side of one SMTP connection, server side: reads raw bytes, splits command lines at LF
 * (CRLF or a bare LF), hands every complete command of a segment to the protocol (`SmtpSession`,
 * ./smtp-session.ts) in order and writes the replies of a segment in one write (PIPELINING), also
 * when a recipient or the message of the batch is decided asynchronously.
 * Bytes after `DATA`'s 354 or inside a `BDAT` chunk are message, never commands. While `busy`
 * (a message being stored, a recipient being decided) nothing further is read into commands, so
 * no reply overtakes the one being waited for. It also owns flow control, the idle timer, the TLS
 * upgrade after STARTTLS and the close.
 */
export abstract class SmtpConnection {
  protected mode = COMMAND;
  /** Bytes received and not yet consumed. */
  private pending: Buffer | null = null;
  /** Replies not yet written. */
  private out = '';
  /** Waiting for the store to take a message, or for the policy to decide a recipient. */
  protected busy = false;
  /** Skipping the rest of a command line that was too long. */
  private discarding = false;
  private closing = false;
  /** Whether STARTTLS has made the connection secure. */
  protected tls = false;
  private errors = 0;
  /** The message being received, and its reader while it comes by `DATA`. */
  protected message: MessageBuffer | null = null;
  protected dot: DotBodyReader | null = null;
  /** Bytes still to come of the `BDAT` chunk being read. */
  protected chunkLeft = 0;

  /** Greets the client on `socket` and serves it until it quits or the socket closes. */
  constructor(
    protected socket: Socket,
    protected readonly context: SessionContext,
    private readonly onClose: (session: SmtpConnection) => void,
  ) {
    // Nagle's algorithm off (a no-op when the server already turned it off at the accept).
    socket.setNoDelay(true);
    this.listen(socket);
    socket.write(context.replies.greeting);
  }

  /** A command line (verb and argument) in COMMAND mode. */
  protected abstract command(line: string): void;
  /** A response line to an AUTH challenge, in AUTH mode. */
  protected abstract authResponse(line: string): void;
  /** A command line over the length limit, now skipped: ends an AUTH exchange, answers 500. */
  protected abstract lineTooLong(): void;
  /** The end of `DATA`'s message (the lone dot read). */
  protected abstract endOfData(): void;
  /** The end of a `BDAT` chunk. */
  protected abstract endOfChunk(): void;

  /** Serves what `socket` reads; called again for the TLS socket after STARTTLS. */
  private listen(socket: Socket): void {
    socket.setTimeout(this.context.options.idleSeconds * 1000);
    // Anonymous closures: esbuild's keepNames (tsx) gives a named one a defineProperty per session.
    socket.on('data', (chunk: Buffer) => this.received(chunk));
    socket.on('timeout', () => this.idle());
    socket.on('drain', () => this.throttle());
    socket.on('error', () => socket.destroy());
    socket.once('close', () => {
      if (this.socket !== socket) return;
      this.mode = CLOSED;
      this.onClose(this);
    });
  }

  /** Starts TLS once STARTTLS's 220 is written; the session goes on over the TLS socket. */
  private upgrade(): void {
    this.socket = upgradeToTls(this.socket, this.context.options.tls!, () => {
      if (this.mode !== UPGRADING) return;
      this.tls = true;
      this.mode = COMMAND;
    });
    this.listen(this.socket);
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
    if (this.mode === CLOSED || this.mode === UPGRADING) return;
    this.pending = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    if (!this.busy) this.guarded();
    this.throttle();
  }

  /** Runs, and ends the session rather than the process when the policy throws. */
  protected guarded(): void {
    try {
      this.run();
    } catch {
      this.end(REPLY.internalError);
    }
  }

  /** Pauses reading while too much waits on either side (see MAX_HELD), and resumes it after. */
  protected throttle(): void {
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
    // While a recipient or a message is being decided, the replies so far wait for its reply:
    // a PIPELINING batch is answered in one write (RFC 2920 only asks that nothing waits once
    // the server waits for input).
    if (!this.busy) this.flush();
  }

  /** Reads commands and message bytes from `buffer`; answers how far it got. */
  private consume(buffer: Buffer): number {
    const length = buffer.length;
    let at = 0;
    while (at < length && !this.busy && this.mode !== CLOSED) {
      if (this.mode === UPGRADING) return length;
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
          this.lineTooLong();
        } else if (this.mode === AUTH) this.authResponse(buffer.toString('utf8', at, end));
        else this.command(buffer.toString('utf8', at, end));
        at = lf + 1;
      }
    }
    return at;
  }

  protected reply(reply: string): void {
    this.out += reply;
  }

  /** Answers a command that was wrong; past the limit of errors, ends the session. */
  protected error(reply: string): void {
    this.out += reply;
    if (++this.errors >= this.context.maxErrors) this.end(this.context.replies.tooManyErrors);
  }

  private flush(): void {
    if (this.out === '') return;
    // STARTTLS's 220 goes out in clear; TLS starts once it is written.
    if (this.mode === UPGRADING && this.socket.writable) this.socket.write(this.out, () => this.mode === UPGRADING && this.upgrade());
    else if (this.socket.writable) this.socket.write(this.out);
    this.out = '';
  }

  /**
   * Sends the last reply and closes: at once when the reply is already with the kernel (waiting
   * for the client's end costs a read and a shutdown per message, and clients such as
   * `smtp-source` close without reading the 221), after the write otherwise.
   */
  protected end(reply: string): void {
    this.out += reply;
    this.mode = CLOSED;
    this.pending = null;
    this.flush();
    if (this.socket.writableLength === 0) this.socket.destroy();
    else this.socket.destroySoon();
  }
}
