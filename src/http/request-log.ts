import pino, { type DestinationStream, type Logger } from 'pino';
import type { RequestSink } from './request-telemetry.js';

import type { LogLevel } from './log-levels.js';

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
  /** Writes out whatever is buffered (before the process exits). */
  flush(): void;
}

/** Longest a line waits before it is written, in milliseconds. */
const BATCH_WAIT_MS = 20;
/** Lines written at once when this many are waiting, before the wait is over. */
const BATCH_LINES = 256;

/**
 * Lines handed to a pino destination in groups: every {@link BATCH_WAIT_MS} ms, or as soon as
 * {@link BATCH_LINES} wait. sonic-boom (pino's destination) measures the byte length of its whole
 * pending buffer on every write, so each line written while a write is under way costs more the
 * more lines wait (about 1.7 µs a line under load, measured), and each write it makes is a system
 * call, dear in a sandboxed kernel; grouped, a line costs an array push. sonic-boom still does
 * the writing (partial writes, EAGAIN on pipes).
 */
class LineBatch implements DestinationStream {
  private lines: string[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly target: DestinationStream & { flushSync?: () => void }) {}

  write(line: string): void {
    this.lines.push(line);
    if (this.lines.length >= BATCH_LINES) this.hand();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.hand(), BATCH_WAIT_MS);
      this.timer.unref();
    }
  }

  /** Hands the waiting lines to the destination. */
  hand(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.lines.length === 0) return;
    const text = this.lines.length === 1 ? this.lines[0]! : this.lines.join('');
    this.lines = [];
    this.target.write(text);
  }

  flushSync(): void {
    this.hand();
    try {
      this.target.flushSync?.();
    } catch {
      // sonic-boom throws when it is not ready or holds nothing: nothing is lost then.
    }
  }
}

/** `,"time":"<ISO>"` made once per millisecond: a saturated server writes many lines in one. */
function cachedIsoTime(): () => string {
  let lastMs = -1;
  let field = '';
  return () => {
    const now = Date.now();
    if (now !== lastMs) {
      lastMs = now;
      field = `,"time":"${new Date(now).toISOString()}"`;
    }
    return field;
  };
}

/**
 * The service's JSON logs (DECISIONS.md: one line per request on stdout with `time`, `level`,
 * `req_id`, `method`, `route`, `status`, `ms`, `agent_id`), with pino: ISO times, level names,
 * no pid or hostname. Request lines go through a logger of their own without redaction: they are
 * made here of fields that hold no secret (the route's template, never the target with its
 * query; no header but the request id), and pino's path redaction costs about 14 µs a line
 * (measured), as much as a whole GET. Every other line goes through the redacting logger. Lines
 * reach stdout (or `destination`) asynchronously, in groups (at most 20 ms late).
 */
export function createRequestLogger(options: { level?: LogLevel; destination?: DestinationStream } = {}): RequestLogger {
  const batch = new LineBatch(options.destination ?? pino.destination({ dest: 1, sync: false }));
  const common = { level: options.level ?? 'info', base: null, timestamp: cachedIsoTime(), formatters: { level: (label: string) => ({ level: label }) } };
  const logger = pino({ ...common, redact: { paths: [...REDACTED_PATHS], censor: '[redacted]' } }, batch);
  const requests = pino(common, batch);
  const enabled = requests.isLevelEnabled('info');
  return {
    logger,
    sink: (request) => {
      if (!enabled) return;
      requests.info({ req_id: request.reqId, method: request.method, route: request.route, status: request.status, ms: request.ms, agent_id: request.agentId }, 'request');
    },
    flush: () => batch.flushSync(),
  };
}
