import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Runtime } from '../runtime/create-runtime.js';
import { answerClientError, MAX_HEADER_BYTES } from './client-errors.js';
import { createApp, underPrefix } from './create-app.js';
import { RequestTracker, type RequestSink } from './request-telemetry.js';
import type { ServiceMetrics } from './service-metrics.js';

/** Where and how to listen. */
export interface ServeOptions {
  port?: number;
  host?: string;
  /** Receive every completed request (the JSON request log); none by default. */
  sinks?: readonly RequestSink[];
  /** Serves `GET /metrics` from these metrics and counts every request in them; no metrics by default. */
  metrics?: ServiceMetrics;
}

/** A listening server. */
export interface RunningServer {
  /** `http://HOST:PORT` it listens on. */
  url: string;
  port: number;
  /** Stops listening and cuts every open connection at once. */
  close(): Promise<void>;
  /**
   * The graceful stop: closes the listener (new connections are refused), lets the requests in
   * flight finish for up to `timeoutMs` (a request arriving meanwhile on an open keep-alive
   * connection is answered with `Connection: close`), then cuts whatever is left. Answers how
   * many requests were cut.
   */
  shutdown(timeoutMs: number): Promise<{ cut: number }>;
}

/** Where and how {@link serve} listens. */
export interface ServeOptions {
  /** Port to listen on (default 8787; 0 picks a free one). */
  port?: number;
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** A client that has not sent its whole request line and headers by then is answered 408 `request_timeout` (default 60 s). */
  headersTimeoutMs?: number;
  /** A client that has not sent its whole request (body included) by then is answered 408 `request_timeout` (default 300 s). */
  requestTimeoutMs?: number;
}

/** Path of an upgrade request's target (origin-form or absolute-form), or null when unreadable. */
function upgradePath(target: string): string | null {
  try {
    return new URL(target.charCodeAt(0) === 47 ? `http://upgrade.invalid${target}` : target).pathname;
  } catch {
    return null;
  }
}

/**
 * Serves a runtime over HTTP on `host:port` (port 0 picks a free one) with `node:http`: API
 * requests are answered straight from Node's request and response objects (see createApp), and a
 * WebSocket upgrade goes to the area `upgrade` edge whose prefix its path is under (any other
 * upgrade is answered 404 and its socket destroyed). Requests Node's parser refuses before routing
 * get the DECISIONS.md JSON error: 400 `invalid_request` (malformed, conflicting lengths), 431
 * `headers_too_large` (request line and headers over 16 KB), 408 `request_timeout` (a client
 * that stalls). Unless the runtime was configured with its URLs, `{base_url}` becomes the listen
 * address.
 */
export function serve(runtime: Runtime, options: ServeOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const app = createApp(runtime, options.metrics ? { metrics: options.metrics } : {});
  const tracker = new RequestTracker([...(options.sinks ?? []), ...(options.metrics ? [options.metrics.sink] : [])]);
  let stopping = false;
  const headersTimeout = options.headersTimeoutMs ?? 60_000;
  const requestTimeout = Math.max(headersTimeout, options.requestTimeoutMs ?? 300_000);
  const server = createServer(
    {
      maxHeaderSize: MAX_HEADER_BYTES,
      headersTimeout,
      requestTimeout,
      // Node looks for stalled requests on this interval; a stall is answered within it.
      connectionsCheckingInterval: Math.min(30_000, Math.max(10, Math.floor(headersTimeout / 4))),
    },
    (request, response) => {
      tracker.begin(request, response);
      if (stopping) {
        // A keep-alive connection still open during the stop: this answer is its last.
        response.setHeader('connection', 'close');
        response.once('close', () => server.closeIdleConnections());
      }
      app.handle(request, response);
    },
  );
  // Requests Node's parser refuses (malformed, over 16 KB of headers, stalled) answer in JSON too.
  server.on('clientError', answerClientError);
  const upgrades = runtime.edges().flatMap((edge) => (edge.kind === 'upgrade' ? [edge] : []));
  server.on('upgrade', (request, socket, head) => {
    const path = upgradePath(request.url ?? '/');
    const edge = path === null ? undefined : upgrades.find((candidate) => underPrefix(path, candidate.prefix));
    if (edge) {
      try {
        edge.upgrade(request, socket, head);
        return;
      } catch (error) {
        process.stderr.write(`internal error in the upgrade edge ${edge.prefix}: ${(error as Error)?.stack ?? String(error)}\n`);
      }
    }
    // Destroyed once the answer is flushed: destroying at once could drop it.
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n', () => socket.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8787, host, () => {
      server.off('error', reject);
      const info = server.address() as AddressInfo;
      const shownHost = host.includes(':') ? `[${host}]` : host;
      const url = `http://${shownHost}:${info.port}`;
      runtime.config.useListenAddress(url);
      resolve({
        url,
        port: info.port,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((error) => (error ? fail(error) : done()));
            server.closeAllConnections();
          }),
        shutdown: async (timeoutMs) => {
          stopping = true;
          // Refuses new connections and closes the idle keep-alive ones; busy ones finish their request.
          server.close();
          server.closeIdleConnections();
          let timer: NodeJS.Timeout | undefined;
          const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)));
          const outcome = await Promise.race([tracker.drained().then(() => 'drained' as const), late]);
          clearTimeout(timer);
          const cut = outcome === 'late' ? tracker.pending : 0;
          server.closeAllConnections();
          return { cut };
        },
      });
    });
  });
}
