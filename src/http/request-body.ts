import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from '../core/shared/api-error.js';
import { lingerThenDestroy } from './client-errors.js';

const EMPTY = new Uint8Array(0);

/**
 * The 413 of a body that grew past `limit` bytes as it streamed (chunked): answered as soon as it
 * does, without reading the rest, and the connection closed (`Connection: close`).
 */
export function tooLarge(limit: number): ApiError {
  return new ApiError('payload_too_large', `request body over ${limit} bytes`, undefined, { connection: 'close' });
}

/** The 413 of a body whose Content-Length is over `limit`: answered at once, and the connection closed. */
function announcedTooLarge(limit: number, declared: string): ApiError {
  return new ApiError('payload_too_large', `request body over ${limit} bytes (Content-Length: ${declared})`, undefined, { connection: 'close' });
}

/** Whether a declared Content-Length is over `limit`. */
function declaredOver(declared: string | null | undefined, limit: number): declared is string {
  return declared !== undefined && declared !== null && declared !== '' && Number(declared) > limit;
}

/**
 * Has Node close a refused request's connection gently once its `Connection: close` answer is
 * written. Node closes such a socket with destroySoon, which resets a socket still holding unread
 * bytes, and a client still sending its body (fetch sends it all before it reads) would then
 * report a network error instead of the 413: the socket sends a FIN and lets the client's last
 * bytes in first (lingerThenDestroy).
 */
export function closeGently(request: IncomingMessage): void {
  const socket = request.socket as Socket & { destroySoon?: () => void };
  socket.destroySoon = () => {
    socket.end();
    lingerThenDestroy(socket);
  };
}

/**
 * The 413 of a Node request whose Content-Length is over `limit`, with its connection set to close
 * gently; undefined when the length is within it or not given.
 */
export function refuseAnnounced(request: IncomingMessage, limit: number): ApiError | undefined {
  const declared = request.headers['content-length'];
  if (!declaredOver(declared, limit)) return undefined;
  closeGently(request);
  return announcedTooLarge(limit, declared);
}

/**
 * The 413 of a WHATWG request whose Content-Length is over `limit` (its body cancelled unread);
 * undefined when the length is within it or not given.
 */
export async function refuseAnnouncedWeb(request: Request, limit: number): Promise<ApiError | undefined> {
  const declared = request.headers.get('content-length');
  if (!declaredOver(declared, limit)) return undefined;
  await request.body?.cancel().catch(() => {});
  return announcedTooLarge(limit, declared);
}

/**
 * The whole body of a Node request, read as it arrives. A Content-Length over `limit` is refused
 * at once, before a byte is read (DECISIONS.md); a body without a length (chunked) is refused as
 * soon as it grows past `limit`, with nothing more read. Either 413 closes the connection gently
 * ({@link closeGently}), so the client reads the 413 rather than a reset.
 * @throws ApiError 413 payload_too_large; 400 invalid_request when the client aborts mid-body
 */
export function readNodeBody(request: IncomingMessage, limit: number): Promise<Uint8Array> {
  const announced = refuseAnnounced(request, limit);
  if (announced) return Promise.reject(announced);
  if (request.readableEnded) return Promise.resolve(EMPTY);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      request.off('data', onData).off('end', onEnd).off('error', onError).off('aborted', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        cleanup();
        // What still comes until the connection closes is dropped as it arrives, not kept.
        request.resume();
        closeGently(request);
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 0 ? EMPTY : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = () => {
      cleanup();
      reject(new ApiError('invalid_request', 'the request body ended before it was complete'));
    };
    request.on('data', onData).once('end', onEnd).once('error', onError).once('aborted', onError);
  });
}

/**
 * The whole body of a WHATWG request, read chunk by chunk and refused as soon as it passes `limit`.
 * @throws ApiError 413 payload_too_large; 400 invalid_request when the body stream fails
 */
export async function readWebBody(request: Request, limit: number): Promise<Uint8Array> {
  const announced = await refuseAnnouncedWeb(request, limit);
  if (announced) throw announced;
  if (!request.body) return EMPTY;
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let next: Awaited<ReturnType<typeof reader.read>>;
    try {
      next = await reader.read();
    } catch {
      throw new ApiError('invalid_request', 'the request body ended before it was complete');
    }
    if (next.done) break;
    size += next.value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(next.value);
  }
  return chunks.length === 0 ? EMPTY : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}

/** Whether a Content-Type names JSON: `application/json` or a `+json` type, any parameters. */
export function isJsonType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const end = contentType.indexOf(';');
  const type = (end < 0 ? contentType : contentType.slice(0, end)).trim().toLowerCase();
  return type === 'application/json' || (type.endsWith('+json') && type.includes('/'));
}

/** The `charset` parameter of a Content-Type, lower-cased and unquoted, or undefined when it has none. */
export function charsetOf(contentType: string): string | undefined {
  if (contentType.indexOf(';') < 0) return undefined;
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^\s;]*))/i.exec(contentType);
  return match ? (match[1] ?? match[2] ?? '').toLowerCase() : undefined;
}

/** Whether a Content-Type is `multipart/form-data`. */
export function isMultipartType(contentType: string | undefined): boolean {
  return contentType !== undefined && /^\s*multipart\/form-data\s*(;|$)/i.test(contentType);
}

/**
 * The JSON value of a request body: undefined when the body is empty or only whitespace.
 * @throws ApiError 415 unsupported_media_type when a body is sent without a JSON Content-Type or
 *   with a charset other than utf-8; 400 invalid_request when it is not UTF-8 or not JSON
 */
export function jsonOf(bytes: Uint8Array, contentType: string | undefined): unknown {
  if (bytes.byteLength === 0) return undefined;
  if (!isJsonType(contentType)) throw new ApiError('unsupported_media_type', 'a request body must be JSON, sent with Content-Type: application/json');
  const charset = charsetOf(contentType!);
  if (charset !== undefined && charset !== 'utf-8') {
    throw new ApiError('unsupported_media_type', `a JSON body is UTF-8: expected charset=utf-8 or none, got charset=${charset.slice(0, 40)}`);
  }
  if (!isUtf8(bytes)) throw new ApiError('invalid_request', 'the request body is not valid UTF-8');
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError('invalid_request', 'the request body is not valid JSON');
  }
}

/**
 * The parsed body of a `rawBody` route (a signed provider callback): the fields of a form post
 * (`application/x-www-form-urlencoded`, as Twilio sends), else JSON as for every other route.
 * @throws ApiError 415 unsupported_media_type, 400 invalid_request as {@link jsonOf}
 */
export function rawBodyOf(bytes: Uint8Array, contentType: string | undefined): unknown {
  if (contentType !== undefined && /^\s*application\/x-www-form-urlencoded\s*(;|$)/i.test(contentType)) {
    if (!isUtf8(bytes)) throw new ApiError('invalid_request', 'the request body is not valid UTF-8');
    return Object.fromEntries(new URLSearchParams(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')));
  }
  return jsonOf(bytes, contentType);
}
