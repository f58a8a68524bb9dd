import type { AddressInfo } from 'node:net';
import { serve as serveNode } from '@hono/node-server';
import type { Runtime } from '../runtime/create-runtime.js';

/** A listening server. */
export interface RunningServer {
  /** `http://HOST:PORT` it listens on. */
  url: string;
  port: number;
  /** Stops listening and waits for open connections to end. */
  close(): Promise<void>;
}

/**
 * Serves a runtime over HTTP on `host:port` (port 0 picks a free one). Unless the runtime was
 * configured with its URLs, `{base_url}` becomes the listen address.
 */
export function serve(runtime: Runtime, options: { port?: number; host?: string } = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const server = serveNode({ fetch: (request) => runtime.fetch(request), port: options.port ?? 8787, hostname: host }, (info: AddressInfo) => {
      const shownHost = host.includes(':') ? `[${host}]` : host;
      const url = `http://${shownHost}:${info.port}`;
      runtime.config.useListenAddress(url);
      resolve({
        url,
        port: info.port,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((error) => (error ? fail(error) : done()));
            if ('closeAllConnections' in server) server.closeAllConnections();
          }),
      });
    });
    server.once('error', reject);
    server.on('upgrade', (request, socket, head) => {
      const path = new URL(request.url ?? '/', 'http://upgrade').pathname;
      const edge = runtime.edges().find((candidate) => candidate.kind === 'upgrade' && path.startsWith(candidate.prefix));
      if (edge?.kind === 'upgrade') return edge.upgrade(request, socket, head);
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    });
  });
}
