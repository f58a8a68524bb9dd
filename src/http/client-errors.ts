import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from '../core/shared/api-error.js';

/** Longest request line plus headers the server reads (DECISIONS.md: over 16 KB is 431). */
export const MAX_HEADER_BYTES = 16 * 1024;

/**
 * How long a connection closed by the server after a refusal still takes (and discards) what the
 * client sends. Closed at once with unread bytes, the kernel answers with a reset, and many clients
 * then report a network error instead of the answer that was already sent.
 */
const LINGER_MS = 2_000;

/**
 * The DECISIONS.md error of a request Node's HTTP parser refused before routing ("Requests
 * refused before routing"), or undefined when there is no one to answer (the client reset).
 */
export function refusalOf(error: Error & { code?: string }): ApiError | undefined {
  switch (error.code) {
    case 'ECONNRESET':
    case 'EPIPE':
      return undefined;
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('headers_too_large', `the request line and headers are over ${MAX_HEADER_BYTES} bytes`);
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('request_timeout', 'the request was not complete in time: the client stalled');
    default:
      // llhttp's reasons ("Invalid header value char", "Content-Length can't be present with
      // Transfer-Encoding") say what was wrong without echoing the request.
      return new ApiError('invalid_request', `malformed HTTP request: ${'reason' in error && typeof error.reason === 'string' ? error.reason : (error.code ?? 'unreadable')}`);
  }
}

/**
 * The server's `clientError` listener: answers the refusal as JSON in the DECISIONS.md error shape
 * (Node's own answer has an empty body), then closes the connection. A connection whose current
 * answer has begun is only closed: a second status line would corrupt it. (A keep-alive
 * connection's earlier answers are complete, so a malformed later request is still answered.)
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const refusal = refusalOf(error);
  // The answer in progress on this connection, if any (Node's own clientError handling asks the same).
  const answering = (socket as { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (!refusal || !socket.writable || answering?.headersSent) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(refusal.toBody());
  const head = [`HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? 'Error'}`, 'Content-Type: application/json; charset=utf-8', `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close'].join('\r\n');
  socket.end(`${head}\r\n\r\n${body}`);
  lingerThenDestroy(socket);
}

/**
 * Closes a connection gently once its answer is written: the answer and a FIN go out, whatever the
 * client still sends is read and dropped, and the socket is destroyed when the client closes its
 * side or after {@link LINGER_MS}.
 */
export function lingerThenDestroy(socket: Duplex): void {
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.on('data', () => {});
  socket.on('error', () => {});
  socket.resume();
}
