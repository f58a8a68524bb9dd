import type { Readable } from 'node:stream';
import type busboy from 'busboy';
import type { UploadedFile } from '../core/api/binary.js';
import { ApiError } from '../core/shared/api-error.js';
import { tooLarge } from './request-body.js';

/** Bounds on the parts of an upload request that are not the file itself. */
const LIMITS = { fields: 20, fieldSize: 64 * 1024, parts: 30, headerPairs: 100 };

/**
 * The bytes of a file part. The handler may stop reading early (over its size limit): the part is
 * then left open rather than destroyed under busboy. A body that ends inside the part is a 400; one
 * cut because it passed its limit (`cut()`) is the 413.
 */
async function* partBytes(part: Readable, field: string, cut: () => ApiError | undefined): AsyncIterable<Uint8Array> {
  try {
    for await (const chunk of part.iterator({ destroyOnReturn: false })) yield chunk as Uint8Array;
  } catch {
    throw cut() ?? new ApiError('invalid_request', `${field}: the request body ended before the file was complete`, field);
  }
}

/** Reads and discards the rest of a body, up to `budget` bytes: answers whether it ended within them. */
function drain(body: Readable, budget: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (body.readableEnded || body.destroyed) return resolve(true);
    let seen = 0;
    const done = (ended: boolean) => {
      body.off('data', onData).off('end', onEnd).off('error', onEnd).off('close', onEnd);
      resolve(ended);
    };
    const onEnd = () => done(true);
    const onData = (chunk: Buffer) => {
      seen += chunk.byteLength;
      if (seen > budget) done(false);
    };
    body.on('data', onData).once('end', onEnd).once('error', onEnd).once('close', onEnd);
    body.resume();
  });
}

/** How an upload's body is read: its limit, and what to do with a body refused before its end. */
export interface UploadBody {
  /** The stream: the socket's request itself, or a WHATWG body through `Readable.fromWeb`. */
  stream: Readable;
  contentType: string | undefined;
  /** Most bytes of the whole multipart body (the file's limit and the multipart framing). */
  limit: number;
  /** Called once when the body passed `limit`: stops the rest (a socket then closes gently). */
  refuse(): void;
}

/**
 * Streams a multipart/form-data body into `handle`: as soon as the part named `field` that holds
 * a file starts, `handle` gets it as an {@link UploadedFile} whose bytes are read from the request
 * as the handler consumes them (busboy, loaded by the first upload; nothing is buffered whole).
 * Without such a part, or when the body is not multipart, `handle` gets undefined (the dispatcher
 * answers 400 after authentication). Once `handle` is done, whatever it left unread is read and
 * discarded before its answer is given, so the client is not cut off mid-send, but never past the
 * body's limit: a body that grows past it (chunked, or longer than it announced) is cut there, the
 * file's stream fails, and the answer is 413 payload_too_large with the connection closed, unless
 * the handler answered 2xx: its upload was then kept (the file was complete before the excess,
 * which came after it), and a 413 would say it was not; that answer is given and the connection
 * still closed. (A Content-Length over the limit is refused before this runs.)
 */
export async function withMultipartFile<T extends { status: number }>(body: UploadBody, field: string, handle: (file: UploadedFile | undefined) => Promise<T>): Promise<T> {
  const { default: createParser } = await import('busboy');
  const { stream, limit } = body;
  let seen = 0;
  let refused: ApiError | undefined;
  const refuse = () => {
    if (refused) return;
    refused = tooLarge(limit);
    stream.off('data', count);
    body.refuse();
  };
  const count = (chunk: Buffer) => {
    seen += chunk.byteLength;
    if (seen > limit) {
      refuse();
      // The file's stream fails with the 413 (partBytes): its handler stops at once.
      parser?.destroy(refused);
    }
  };
  /** The handler's answer once the rest of the body is read within the limit, or the 413. */
  const settle = async (answer: Promise<T>): Promise<T> => {
    const settled = await answer.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    if (!refused) {
      if (parser) stream.unpipe(parser);
      stream.off('data', count);
      if (!(await drain(stream, limit - seen))) refuse();
    }
    if ('error' in settled) throw refused ?? settled.error;
    if (refused && !(settled.value.status >= 200 && settled.value.status < 300)) throw refused;
    return settled.value;
  };
  let parser: busboy.Busboy | undefined;
  stream.on('data', count);
  try {
    parser = createParser({ headers: { 'content-type': body.contentType ?? '' }, limits: LIMITS });
  } catch {
    return settle(handle(undefined));
  }
  const multipart = parser;
  return new Promise<T>((resolve, reject) => {
    let started = false;
    const start = (file: UploadedFile | undefined) => {
      if (started) return;
      started = true;
      settle(handle(file)).then(resolve, reject);
    };
    multipart.on('file', (name, part, info) => {
      if (started || name !== field) {
        part.resume();
        return;
      }
      start({ filename: info.filename ?? '', contentType: info.mimeType || 'application/octet-stream', stream: partBytes(part, field, () => refused) });
    });
    multipart.on('close', () => start(undefined));
    multipart.on('error', () => start(undefined));
    stream.on('error', (error) => multipart.destroy(error));
    stream.pipe(multipart);
  });
}
