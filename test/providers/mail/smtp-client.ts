/**
 * A raw SMTP conversation over a plain socket, as an outside test suite would hold one: send a
 * line, read the complete (possibly multi-line) reply.
 */
import net from 'node:net';

/** One open SMTP connection. */
export interface SmtpConversation {
  /** The server's greeting. */
  greeting: string;
  /** Sends one command line (CRLF added) and answers the server's complete reply. */
  command(line: string): Promise<string>;
  /** Sends message data as it is (already dot-stuffed, ending with CRLF.CRLF) and answers the reply. */
  data(raw: string | Buffer): Promise<string>;
  close(): void;
}

/** Opens a connection and waits for the greeting. */
export async function openSmtp(port: number, host = '127.0.0.1'): Promise<SmtpConversation> {
  const socket = net.connect({ port, host });
  let buffer = '';
  let waiting: { resolve: (reply: string) => void; reject: (error: Error) => void } | null = null;
  let failure: Error | null = null;
  const complete = () => {
    // A reply is complete at a line `NNN text` (a space after the code, not a hyphen).
    const lines = buffer.split('\r\n');
    for (let i = 0; i < lines.length - 1; i++) {
      if (/^\d{3}( |$)/.test(lines[i]!)) {
        const reply = lines.slice(0, i + 1).join('\r\n');
        buffer = lines.slice(i + 1).join('\r\n');
        return reply;
      }
    }
    return null;
  };
  const next = () =>
    new Promise<string>((resolve, reject) => {
      const ready = complete();
      if (ready !== null) return resolve(ready);
      if (failure) return reject(failure);
      waiting = { resolve, reject };
    });
  socket.on('error', (error) => {
    failure = error;
    waiting?.reject(error);
    waiting = null;
  });
  socket.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    if (waiting) {
      const reply = complete();
      if (reply !== null) {
        const { resolve } = waiting;
        waiting = null;
        resolve(reply);
      }
    }
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const greeting = await next();
  return {
    greeting,
    command: (line) => {
      socket.write(`${line}\r\n`);
      return next();
    },
    data: (raw) => {
      socket.write(raw);
      return next();
    },
    close: () => socket.destroy(),
  };
}

/** Dot-stuffs a message and appends the end-of-data marker (RFC 5321 §4.5.2). */
export function dataOf(raw: string): string {
  const body = raw.endsWith('\r\n') ? raw : `${raw}\r\n`;
  return `${body.replace(/^\./gm, '..')}.\r\n`;
}
