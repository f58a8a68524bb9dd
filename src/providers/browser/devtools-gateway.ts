import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { CdpChannel } from '../../core/ports/browser.js';
import type { BrowserSessions } from '../../core/browser/browser.service.js';
import { parseDevtoolsPath } from '../../core/browser/devtools-path.js';

const REASONS: Record<number, string> = { 401: 'Unauthorized', 404: 'Not Found' };

/**
 * The service's DevTools WebSocket endpoint: checks the session and its secret at the upgrade
 * (404 for an unknown or ended session, 401 for a wrong or missing secret, both before any
 * WebSocket exists), then hands the connection to the session's browser.
 */
export class DevtoolsGateway {
  private readonly server = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });

  constructor(private readonly sessions: BrowserSessions) {}

  /**
   * Answers one `upgrade` event whose path is under the DevTools prefix.
   * @throws what reading the session threw (the caller destroys the socket)
   */
  async upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const target = parseDevtoolsPath(request.url ?? '');
    if (!target) return refuse(socket, 404, 'not a DevTools endpoint');
    const verdict = await this.sessions.authorizeDevtools(target.sessionId, target.secret);
    if (verdict.kind === 'refuse') return refuse(socket, verdict.status, verdict.message);
    this.server.handleUpgrade(request, socket, head, (ws) => this.sessions.connect(target.sessionId, verdict.instance, channelOf(ws)));
  }

  /** Closes every connection it accepted. */
  close(): void {
    for (const client of this.server.clients) client.terminate();
    this.server.close();
  }
}

/** A WebSocket as a {@link CdpChannel} of text messages. */
export function channelOf(ws: WebSocket): CdpChannel {
  return {
    send: (message) => {
      if (ws.readyState === ws.OPEN) ws.send(message);
    },
    close: () => ws.close(),
    onMessage: (listener) => ws.on('message', (data: Buffer) => listener(data.toString('utf8'))),
    onClose: (listener) => {
      ws.once('close', listener);
      ws.on('error', () => ws.terminate());
    },
  };
}

function refuse(socket: Duplex, status: 401 | 404, message: string): void {
  const body = JSON.stringify({ error: { code: status === 401 ? 'unauthorized' : 'not_found', message } });
  socket.end(`HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
