import WebSocket from 'ws';

interface Pending {
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
}

/**
 * A minimal DevTools-protocol client over one WebSocket: commands with ids and flattened
 * sessions, events to listeners. The service uses it for its own calls (screenshots).
 */
export class CdpConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<(method: string, params: Record<string, unknown>, sessionId: string | undefined) => void>();

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => this.receive(String(data)));
    socket.on('close', () => {
      for (const waiting of this.pending.values()) waiting.reject(new Error('DevTools connection closed'));
      this.pending.clear();
    });
  }

  /** Opens a connection to a DevTools WebSocket URL. @throws Error when it cannot connect */
  static open(url: string): Promise<CdpConnection> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
      socket.once('open', () => resolve(new CdpConnection(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends a command and resolves with its result. @throws Error with the protocol's message */
  send(method: string, params: object = {}, sessionId?: string): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.socket.readyState !== WebSocket.OPEN) return reject(new Error('DevTools connection closed'));
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  }

  /** Registers an event listener; returns its remover. */
  on(listener: (method: string, params: Record<string, unknown>, sessionId: string | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Closes the connection. */
  close(): void {
    this.socket.close();
  }

  private receive(text: string): void {
    const message = JSON.parse(text) as { id?: number; result?: Record<string, unknown>; error?: { message: string }; method?: string; params?: Record<string, unknown>; sessionId?: string };
    if (message.id !== undefined) {
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error) waiting?.reject(new Error(message.error.message));
      else waiting?.resolve(message.result ?? {});
    } else if (message.method) {
      for (const listener of this.listeners) listener(message.method, message.params ?? {}, message.sessionId);
    }
  }
}
