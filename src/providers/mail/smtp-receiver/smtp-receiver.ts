import { createServer, type AddressInfo, type Socket } from 'node:net';
import type { ReceiverOptions, ReceiverPolicy } from './receiver-options.js';
import { fixedReplies } from './replies.js';
import { SmtpSession, type SessionContext } from './smtp-session.js';

/** A listening SMTP receiver. */
export interface RunningReceiver {
  host: string;
  port: number;
  /**
   * Stops listening and ends open connections: idle ones at once with 421, one that is sending or
   * storing a message once its reply is sent; after a second any that remain are cut.
   */
  close(): Promise<void>;
}

/** How long `close()` lets a connection finish the message it is on. */
const CLOSE_GRACE_MS = 1000;

/**
 * Listens for SMTP on `host:port` (0 picks a free port) and serves each connection with a
 * {@link SmtpSession} that speaks the protocol and asks `policy` what to accept.
 * @throws Error when the address cannot be listened on (in use, not permitted)
 */
export function startSmtpReceiver(host: string, port: number, options: ReceiverOptions, policy: ReceiverPolicy): Promise<RunningReceiver> {
  const context: SessionContext = {
    options,
    policy,
    replies: fixedReplies(options, policy.authenticate !== undefined),
    maxRecipients: options.maxRecipients ?? 1000,
    maxErrors: options.maxErrors ?? 10,
  };
  const sessions = new Set<SmtpSession>();
  const closed = (session: SmtpSession) => sessions.delete(session);
  // Nagle's algorithm off from the accept (replies are small and each is awaited by the client).
  const server = createServer({ noDelay: true }, (socket: Socket) => sessions.add(new SmtpSession(socket, context, closed)));
  const close = () =>
    new Promise<void>((resolve) => {
      const cut = setTimeout(() => {
        for (const session of sessions) session.destroy();
      }, CLOSE_GRACE_MS);
      server.close(() => {
        clearTimeout(cut);
        resolve();
      });
      for (const session of sessions) session.shutdown();
    });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      // A failed accept (out of file descriptors, a connection reset before it was taken) is
      // emitted on the server; unhandled it would end the process. The listener keeps serving.
      server.on('error', () => {});
      resolve({ host, port: (server.address() as AddressInfo).port, close });
    });
  });
}
