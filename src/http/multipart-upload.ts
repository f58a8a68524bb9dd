import type { Readable } from 'node:stream';
import type busboy from 'busboy';
import type { UploadedFile } from '../core/api/binary.js';
import { ApiError } from '../core/shared/api-error.js';
import { DRAIN_LIMIT } from './request-body.js';

/** Bounds on the parts of an upload request that are not the file itself. */
const LIMITS = { fields: 20, fieldSize: 64 * 1024, parts: 30, headerPairs: 100 };

/**
 * The bytes of a file part. The handler may stop reading early (over its size limit): the part is
 * then left open rather than destroyed under busboy. A body that ends inside the part is a 400.
 */
async function* partBytes(part: Readable, field: string): AsyncIterable<Uint8Array> {
  try {
    for await (const chunk of part.iterator({ destroyOnReturn: false })) yield chunk as Uint8Array;
  } catch {
    throw new ApiError('invalid_request', `${field}: the request body ended before the file was complete`, field);
  }
}

/** Reads and discards the rest of a body, up to `limit` bytes. */
function drain(body: Readable, limit: number): Promise<void> {
  return new Promise((resolve) => {
    if (body.readableEnded || body.destroyed) return resolve();
    let seen = 0;
    const done = () => {
      body.off('data', onData).off('end', done).off('error', done).off('close', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.byteLength;
      if (seen > limit) {
        body.pause();
        done();
      }
    };
    body.on('data', onData).once('end', done).once('error', done).once('close', done);
    body.resume();
  });
}

/**
 * Streams a multipart/form-data body into `handle`: as soon as the part named `field` that holds
 * a file starts, `handle` gets it as an {@link UploadedFile} whose bytes are read from the request
 * as the handler consumes them (busboy, loaded by the first upload; nothing is buffered whole).
 * Without such a part, or when the body is not multipart, `handle` gets undefined (the dispatcher
 * answers 400 after authentication). Once `handle` is done, whatever it left unread is read and
 * discarded (up to 1 GiB) before its answer is given, so the client is not cut off mid-send.
 * `body` is the request body as a Node stream: the socket's request itself, or a WHATWG body
 * through `Readable.fromWeb`.
 */
export async function withMultipartFile<T>(body: Readable, contentType: string | undefined, field: string, handle: (file: UploadedFile | undefined) => Promise<T>): Promise<T> {
  const { default: createParser } = await import('busboy');
  let parser: busboy.Busboy;
  try {
    parser = createParser({ headers: { 'content-type': contentType ?? '' }, limits: LIMITS });
  } catch {
    return handle(undefined).finally(() => drain(body, DRAIN_LIMIT));
  }
  return new Promise<T>((resolve, reject) => {
    let started = false;
    const start = (file: UploadedFile | undefined) => {
      if (started) return;
      started = true;
      handle(file)
        .finally(async () => {
          body.unpipe(parser);
          await drain(body, DRAIN_LIMIT);
        })
        .then(resolve, reject);
    };
    parser.on('file', (name, stream, info) => {
      if (started || name !== field) {
        stream.resume();
        return;
      }
      start({ filename: info.filename ?? '', contentType: info.mimeType || 'application/octet-stream', stream: partBytes(stream, field) });
    });
    parser.on('close', () => start(undefined));
    parser.on('error', () => start(undefined));
    body.on('error', (error) => parser.destroy(error));
    body.pipe(parser);
  });
}
