import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Runtime } from '../runtime/create-runtime.js';
import { createApp, underPrefix } from './create-app.js';

/** A listening server. */
export interface RunningServer {
  /** `http://HOST:PORT` it listens on. */
  url: string;
  port: number;
  /** Stops listening and waits for open connections to end. */
  close(): Promise<void>;
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
 * upgrade is answered 404 and its socket destroyed). Unless the runtime was configured with its
 * URLs, `{base_url}` becomes the listen address.
 */
export function serve(runtime: Runtime, options: { port?: number; host?: string } = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const app = createApp(runtime);
  const server = createServer((request, response) => app.handle(request, response));
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
      });
    });
  });
}
