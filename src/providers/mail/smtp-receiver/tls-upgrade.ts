import type { Socket } from 'node:net';
import { TLSSocket, type SecureContext } from 'node:tls';

/**
 * Turns a clear SMTP connection into a TLS one after STARTTLS's 220 (RFC 3207): the clear socket
 * stops being read (its data, timeout and drain listeners go), so bytes a client pipelined behind
 * STARTTLS are dropped, never taken as commands of the secure session. `secure` runs once the
 * handshake is done; a failed handshake errors and closes the TLS socket.
 */
export function upgradeToTls(raw: Socket, secureContext: SecureContext, secure: () => void): TLSSocket {
  raw.removeAllListeners('data');
  raw.removeAllListeners('timeout');
  raw.removeAllListeners('drain');
  raw.setTimeout(0);
  const tls = new TLSSocket(raw, { isServer: true, secureContext });
  raw.on('close', () => tls.destroy());
  tls.once('secure', secure);
  return tls;
}
