import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../core/shared/api-error.js';

const EMPTY = new Uint8Array(0);

/** The 413 of a body over `limit` bytes. */
export function tooLarge(limit: number): ApiError {
  return new ApiError('payload_too_large', `request body over ${limit} bytes`);
}

/** A declared Content-Length over `limit`: refused before a byte is read. @throws ApiError 413 payload_too_large */
function checkDeclaredLength(declared: string | null | undefined, limit: number): void {
  if (declared !== undefined && declared !== null && declared !== '' && Number(declared) > limit) throw tooLarge(limit);
}

/**
 * Most bytes of a refused body read and discarded before the 413 is answered: clients such as
 * fetch send the whole body before they read the answer, and a connection closed under them (the
 * kernel resets a socket closed with unread bytes) reports a network error instead of the 413.
 */
export const DRAIN_LIMIT = 1024 * 1024 * 1024;

/**
 * The whole body of a Node request, read as it arrives. Past `limit` bytes (or at once when its
 * Content-Length says it will pass it) nothing more is kept: the rest is read and discarded, up
 * to {@link DRAIN_LIMIT}, and then the 413 is answered, so the client sees it.
 * @throws ApiError 413 payload_too_large; 400 invalid_request when the client aborts mid-body
 */
export function readNodeBody(request: IncomingMessage, limit: number): Promise<Uint8Array> {
  const declared = request.headers['content-length'];
  let refused = false;
  try {
    checkDeclaredLength(declared, limit);
  } catch (error) {
    if (Number(declared) > DRAIN_LIMIT) return Promise.reject(error);
    refused = true;
  }
  if (request.readableEnded) return refused ? Promise.reject(tooLarge(limit)) : Promise.resolve(EMPTY);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      request.off('data', onData).off('end', onEnd).off('error', onError).off('aborted', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        refused = true;
        chunks.length = 0;
      }
      if (refused) {
        if (size > DRAIN_LIMIT) {
          cleanup();
          request.resume();
          reject(tooLarge(limit));
        }
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      if (refused) reject(tooLarge(limit));
      else resolve(chunks.length === 0 ? EMPTY : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
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
  checkDeclaredLength(request.headers.get('content-length'), limit);
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

/** Whether a Content-Type is `multipart/form-data`. */
export function isMultipartType(contentType: string | undefined): boolean {
  return contentType !== undefined && /^\s*multipart\/form-data\s*(;|$)/i.test(contentType);
}

/**
 * The JSON value of a request body: undefined when the body is empty or only whitespace.
 * @throws ApiError 415 unsupported_media_type when a body is sent without a JSON Content-Type;
 *   400 invalid_request when it is not UTF-8 or not JSON
 */
export function jsonOf(bytes: Uint8Array, contentType: string | undefined): unknown {
  if (bytes.byteLength === 0) return undefined;
  if (!isJsonType(contentType)) throw new ApiError('unsupported_media_type', 'a request body must be JSON, sent with Content-Type: application/json');
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
