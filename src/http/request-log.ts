import pino, { type DestinationStream, type Level, type Logger } from 'pino';
import type { RequestSink } from './request-telemetry.js';

/** Levels `--log-level` takes (pino's, and `silent`). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Field paths never written in clear, whatever a log call is given: API keys, tokens, secrets,
 * passwords and card details. A request line holds none of them (it carries the route's template,
 * never the target with its query, and no header but the request id); this is the net under
 * every other line.
 */
export const REDACTED_PATHS: readonly string[] = ['api_key', 'token', 'admin_token', 'authorization', 'secret', 'password', 'auth_token', 'number', 'card_number', 'cvv', 'cvc']
  .flatMap((key) => [key, `*.${key}`, `*.*.${key}`]);

/** A pino logger and the request sink that writes through it. */
export interface RequestLogger {
  logger: Logger;
  /** Writes one JSON line per completed request at `info`. */
  sink: RequestSink;
  /** Writes out whatever is buffered (before the process exits). */
  flush(): void;
}

/**
 * The service's JSON logger (DECISIONS.md: one line per request on stdout with `time`, `level`,
 * `req_id`, `method`, `route`, `status`, `ms`, `agent_id`): pino with ISO times, level names
 * instead of numbers, no pid or hostname, {@link REDACTED_PATHS} censored. By default it writes to
 * stdout asynchronously (sonic-boom groups the lines written while a write is under way), so a
 * saturated server does not pay one system call per request.
 */
export function createRequestLogger(options: { level?: LogLevel; destination?: DestinationStream } = {}): RequestLogger {
  const destination = options.destination ?? pino.destination({ dest: 1, sync: false });
  const logger = pino(
    {
      level: options.level ?? 'info',
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: [...REDACTED_PATHS], censor: '[redacted]' },
    },
    destination,
  );
  const enabled = logger.isLevelEnabled('info' satisfies Level);
  return {
    logger,
    sink: (request) => {
      if (!enabled) return;
      logger.info(
        { req_id: request.reqId, method: request.method, route: request.route, status: request.status, ms: request.ms, agent_id: request.agentId },
        'request',
      );
    },
    flush: () => {
      const stream = destination as DestinationStream & { flushSync?: () => void };
      try {
        stream.flushSync?.();
      } catch {
        // Nothing was buffered, or the stream is not ready yet (sonic-boom throws then): nothing to lose.
      }
    },
  };
}
