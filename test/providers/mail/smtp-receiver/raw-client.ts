/**
 * A raw SMTP client for protocol tests: writes bytes exactly as given, in as many writes as asked,
 * and reads the server's replies one complete (possibly multi-line) reply at a time.
 */
import net from 'node:net';

/** One open connection. */
export interface RawClient {
  greeting: string;
  /** Writes `data` as it is. */
  write(data: string | Buffer): Promise<void>;
  /** Waits for the next `count` complete replies. */
  replies(count: number): Promise<string[]>;
  /** Writes `data` and waits for `count` replies. */
  send(data: string | Buffer, count?: number): Promise<string[]>;
  /** Waits until the server closes the connection; answers the replies that came before. */
  closed(): Promise<string[]>;
  /** Replies received and not yet taken. */
  unread(): string[];
  destroy(): void;
}

/** Opens a connection to `port` and waits for the greeting. */
export async function openRaw(port: number): Promise<RawClient> {
  const socket = net.connect({ port, host: '127.0.0.1', noDelay: true });
  let text = '';
  let ended = false;
  const complete: string[] = [];
  let wake: () => void = () => {};
  const reply = /(?:\d{3}-[^\r\n]*\r\n)*\d{3}(?: [^\r\n]*)?\r\n/y;
  const take = () => {
    let used = 0;
    reply.lastIndex = 0;
    for (let match = reply.exec(text); match; match = reply.exec(text)) {
      complete.push(match[0].slice(0, -2));
      used = reply.lastIndex;
    }
    text = text.slice(used);
    wake();
  };
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    take();
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    ended = true;
    wake();
  });
  const until = async (ready: () => boolean) => {
    while (!ready()) {
      if (ended) throw new Error(`connection closed; replies: ${JSON.stringify(complete)}, partial: ${JSON.stringify(text)}`);
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const replies = async (count: number) => {
    await until(() => complete.length >= count);
    return complete.splice(0, count);
  };
  const write = (data: string | Buffer) => new Promise<void>((resolve) => socket.write(data, () => resolve()));
  const [greeting] = await replies(1);
  return {
    greeting: greeting!,
    write,
    replies,
    send: async (data, count = 1) => {
      await write(data);
      return replies(count);
    },
    closed: async () => {
      while (!ended) await new Promise<void>((resolve) => (wake = resolve));
      return complete.splice(0);
    },
    unread: () => [...complete],
    destroy: () => socket.destroy(),
  };
}
