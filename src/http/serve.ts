import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Runtime } from '../runtime/create-runtime.js';
import { createApp, type AppOptions } from './create-app.js';

/** A listening server. */
export interface RunningServer {
  /** `http://HOST:PORT` it listens on. */
  url: string;
  port: number;
  /** Stops listening and waits for open connections to end. */
  close(): Promise<void>;
}

/**
 * Serves a runtime over HTTP on `host:port` (port 0 picks a free one) with `node:http`: API
 * requests are answered straight from Node's request and response objects (see createApp).
 * Unless the runtime was configured with its URLs, `{base_url}` becomes the listen address.
 */
export function serve(runtime: Runtime, options: { port?: number; host?: string } & AppOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const app = createApp(runtime, options.edges ? { edges: options.edges } : {});
  const server = createServer((request, response) => app.handle(request, response));
  server.on('upgrade', (_request, socket) => {
    socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    socket.destroy();
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
      });
    });
  });
}
