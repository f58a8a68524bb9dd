/**
 * A load client for the SMTP ingest bench that speaks STARTTLS, which Postfix's `smtp-source` does
 * not: like `smtp-source` without `-d`, one connection per message, `sessions` of them at once, no
 * pipelining; with `starttls`, EHLO, STARTTLS, a full TLS handshake (no session resumption, as
 * separate MTAs rarely resume), EHLO again, then MAIL, RCPT, DATA, a message of `bytes` bytes,
 * QUIT. Run as a child process (role from `SMTP_TLS_SOURCE`) so its CPU is its own.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';

/** One run's settings. */
export interface TlsSourceRun {
  port: number;
  sessions: number;
  messages: number;
  bytes: number;
  starttls: boolean;
  /** PEM of the certificate to trust. */
  ca: string;
  servername: string;
}

/** Reads complete SMTP replies from a socket, one at a time. */
function replies(socket: net.Socket): () => Promise<string> {
  let text = '';
  const ready: string[] = [];
  let wake: (() => void) | null = null;
  let failed: Error | null = null;
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
    for (let end = text.indexOf('\r\n'); end >= 0; end = text.indexOf('\r\n')) {
      const line = text.slice(0, end);
      text = text.slice(end + 2);
      if (line[3] !== '-') ready.push(line);
    }
    wake?.();
  });
  socket.on('error', (error) => {
    failed = error;
    wake?.();
  });
  socket.on('close', () => {
    failed ??= new Error('connection closed');
    wake?.();
  });
  return async () => {
    while (ready.length === 0) {
      if (failed) throw failed;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
    }
    return ready.shift()!;
  };
}

async function expectReply(next: () => Promise<string>, code: string): Promise<void> {
  const reply = await next();
  if (!reply.startsWith(code)) throw new Error(`expected ${code}, got "${reply}"`);
}

/** Sends one message on a connection of its own. */
async function oneMessage(run: TlsSourceRun, body: string): Promise<void> {
  let socket: net.Socket = net.connect({ port: run.port, host: '127.0.0.1', noDelay: true });
  let next = replies(socket);
  try {
    await expectReply(next, '220');
    socket.write('EHLO load.example.com\r\n');
    await expectReply(next, '250');
    if (run.starttls) {
      socket.write('STARTTLS\r\n');
      await expectReply(next, '220');
      socket.removeAllListeners('data');
      const secure = tls.connect({ socket, ca: run.ca, servername: run.servername });
      await new Promise<void>((resolve, reject) => {
        secure.once('secureConnect', resolve);
        secure.once('error', reject);
      });
      socket = secure;
      next = replies(secure);
      secure.write('EHLO load.example.com\r\n');
      await expectReply(next, '250');
    }
    socket.write('MAIL FROM:<load@example.com>\r\n');
    await expectReply(next, '250');
    socket.write('RCPT TO:<bob@agents.test>\r\n');
    await expectReply(next, '250');
    socket.write('DATA\r\n');
    await expectReply(next, '354');
    socket.write(body);
    await expectReply(next, '250');
    socket.write('QUIT\r\n');
  } finally {
    socket.destroy();
  }
}

/** A message like `smtp-source -l`'s: four headers, then `bytes` of body in lines of 76. */
function messageOf(bytes: number): string {
  const headers = 'From: <load@example.com>\r\nTo: <bob@agents.test>\r\nDate: Fri, 27 Nov 2026 10:00:00 +0000\r\nMessage-Id: <load@example.com>\r\n\r\n';
  const line = `${'x'.repeat(76)}\r\n`;
  return `${headers}${line.repeat(Math.ceil(bytes / line.length))}.\r\n`;
}

/** Runs the load in this process; answers messages per second (wall time of the whole run). */
export async function tlsSource(run: TlsSourceRun): Promise<number> {
  const body = messageOf(run.bytes);
  let left = run.messages;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: run.sessions }, async () => {
      while (left > 0) {
        left -= 1;
        await oneMessage(run, body);
      }
    }),
  );
  return run.messages / ((performance.now() - started) / 1000);
}

/** Runs the load in a child process (a core of its own); answers messages per second. */
export function tlsSourceInChild(run: TlsSourceRun): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: { ...process.env, SMTP_TLS_SOURCE: JSON.stringify(run) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(Number(out.trim())) : reject(new Error(`TLS load client exited ${code}`))));
  });
}

if (process.env.SMTP_TLS_SOURCE) {
  process.stdout.write(`${await tlsSource(JSON.parse(process.env.SMTP_TLS_SOURCE) as TlsSourceRun)}\n`);
}
