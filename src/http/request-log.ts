import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './log-levels.js';
import { lineStart, perMillisecond, requestLine } from './request-line.js';
import type { CompletedRequest, RequestSink } from './request-telemetry.js';

export { LOG_LEVELS, type LogLevel } from './log-levels.js';

/**
 * Field paths never written in clear by the service's logger, whatever a log call is given: API
 * keys, tokens, secrets, passwords and card details, at the top level and two levels down.
 */
export const REDACTED_PATHS: readonly string[] = ['api_key', 'token', 'admin_token', 'authorization', 'secret', 'password', 'auth_token', 'number', 'card_number', 'cvv', 'cvc'].flatMap((key) => [
  key,
  `*.${key}`,
  `*.*.${key}`,
]);

/** The service's loggers and the request sink that writes through them. */
export interface RequestLogger {
  /** The logger of everything but request lines (start, stop, warnings), redacting {@link REDACTED_PATHS}. */
  logger: Logger;
  /** Writes one JSON line per completed request at `info`. */
  sink: RequestSink;
  /**
   * Writes out at once whatever waits, without waiting for a write under way (the last thing
   * before an exit that cannot wait, such as a second signal). {@link close} is the complete one.
   */
  flush(): void;
  /**
   * Writes out every line logged so far and ends the destination, resolving once everything has
   * been handed to the operating system (or after `timeoutMs`, when the destination does not take
   * it, such as a pipe nobody reads). Nothing may be logged afterwards. The graceful stop's last step.
   */
  close(timeoutMs?: number): Promise<void>;
}

/** Longest a line waits before it is written, in milliseconds. */
const BATCH_WAIT_MS = 20;
/** Lines written at once when this many are waiting, before the wait is over. */
const BATCH_LINES = 256;
/** How long {@link RequestLogger.close} waits for the destination by default. */
const CLOSE_WAIT_MS = 5_000;

/** What the batch needs of its destination: pino's `DestinationStream`, and, when it has them, a stream's end and events. */
type Target = DestinationStream & {
  flushSync?: () => void;
  end?: () => void;
  once?: (event: string, listener: () => void) => unknown;
};

/**
 * Lines handed to a destination in groups: every {@link BATCH_WAIT_MS} ms, or as soon as
 * {@link BATCH_LINES} wait. A request waits as it completed and becomes its line only when its
 * group is written: on the request's path it costs an array push, and the lines of a group are
 * made in one loop, while the code that makes them is at hand (the same work done on each
 * request's path cost two to three times as much, measured). Each write a destination makes is a
 * system call, dear in a sandboxed kernel. With `bytes`, a group is handed as one Buffer (the
 * service's own sonic-boom destination takes bytes: given a string, it measures its byte length
 * on every write and encodes the whole text again after each write); a group of request lines
 * alone is ASCII, encoded as Latin-1 (a copy), not as UTF-8. sonic-boom does the writing
 * (asynchronous, partial writes, EAGAIN on pipes).
 */
class LineBatch implements DestinationStream {
  /** Lines (pino's, as text) and completed requests (lines to make), in the order they came. */
  private waiting: Array<string | CompletedRequest> = [];
  /** Whether a pino line waits (it may hold any character; request lines are ASCII). */
  private text = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly target: Target,
    private readonly bytes: boolean,
    private readonly start: (epochMs?: number) => string,
  ) {}

  /** A line of pino's. */
  write(line: string): void {
    this.text = true;
    this.add(line);
  }

  /** A completed request, whose line is made when its group is written. */
  request(request: CompletedRequest): void {
    this.add(request);
  }

  private add(entry: string | CompletedRequest): void {
    if (this.waiting.push(entry) >= BATCH_LINES) this.hand();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.hand(), BATCH_WAIT_MS);
      this.timer.unref();
    }
  }

  /** Hands the waiting lines to the destination. */
  hand(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const waiting = this.waiting;
    if (waiting.length === 0) return;
    this.waiting = [];
    // Wall-clock time of a performance.now() reading; the two clocks do not drift apart within a group.
    const epochOffset = Date.now() - performance.now();
    const lines = new Array<string>(waiting.length);
    for (let i = 0; i < waiting.length; i++) {
      const entry = waiting[i]!;
      lines[i] = typeof entry === 'string' ? entry : requestLine(entry, this.start(epochOffset + entry.at));
    }
    // One join: a string grown line by line is a chain V8 walks slowly when it is encoded.
    const text = lines.join('');
    const ascii = !this.text;
    this.text = false;
    this.target.write((this.bytes ? Buffer.from(text, ascii ? 'latin1' : 'utf8') : text) as string);
  }

  flushSync(): void {
    this.hand();
    try {
      this.target.flushSync?.();
    } catch {
      // sonic-boom throws when it is not ready or holds nothing: nothing is lost then.
    }
  }

  /** Hands what waits, ends the destination and resolves once it has written everything (or after `timeoutMs`). */
  async end(timeoutMs: number): Promise<void> {
    this.hand();
    const { target } = this;
    if (typeof target.end !== 'function' || typeof target.once !== 'function') return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      // sonic-boom emits `close` once its last write is done (it never closes stdout itself); a
      // Node stream emits `finish`; a broken pipe ends in `error` (pino then drops every line).
      for (const event of ['close', 'finish', 'error']) target.once!(event, resolve);
      timer = setTimeout(resolve, timeoutMs);
      try {
        target.end!();
      } catch {
        resolve();
      }
    });
    clearTimeout(timer);
  }
}

/**
 * The service's JSON logs (DECISIONS.md: one line per request on stdout with `time`, `level`,
 * `req_id`, `method`, `route`, `status`, `ms`, `agent_id`), with pino: ISO times, level names,
 * no pid or hostname, every line but the request lines through a logger that redacts
 * {@link REDACTED_PATHS}. Request lines are pino lines of the same shape (`level`, `time`, ...,
 * `msg`) that {@link requestLine} makes from a template per route, written to the logger's own
 * destination: pino's general path (its message formatting, a loop over the fields, escaping each
 * string a character at a time, its redaction) cost 1.2 µs a line in a loop and about 3.5 µs in a
 * saturated server, the fifth of a whole GET (measured). They hold no secret by construction: the
 * route's template (never the target with its query), no header but the request id. Lines reach stdout
 * (or `destination`) asynchronously through sonic-boom, in groups (at most 20 ms late);
 * {@link RequestLogger.close} writes out every one. `dest` is where they go (a file descriptor or
 * a file's path; stdout by default); `destination`, a stream to take them instead (tests).
 */
export function createRequestLogger(options: { level?: LogLevel; dest?: number | string; destination?: DestinationStream } = {}): RequestLogger {
  const own = options.destination === undefined;
  const destination = options.destination ?? pino.destination({ dest: options.dest ?? 1, sync: false, contentMode: 'buffer' });
  const batch = new LineBatch(destination as Target, own, lineStart(',"req_id":'));
  const logger = pino(
    {
      level: options.level ?? 'info',
      base: null,
      // pino's `timestamp`: `,"time":"<ISO>"`, made once per millisecond.
      timestamp: perMillisecond((iso) => `,"time":"${iso}"`),
      formatters: { level: (label: string) => ({ level: label }) },
      redact: { paths: [...REDACTED_PATHS], censor: '[redacted]' },
    },
    batch,
  );
  const enabled = logger.isLevelEnabled('info');
  return {
    logger,
    sink: enabled ? (request) => batch.request(request) : () => {},
    flush: () => batch.flushSync(),
    close: (timeoutMs = CLOSE_WAIT_MS) => batch.end(timeoutMs),
  };
}
