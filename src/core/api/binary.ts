/**
 * Bytes in and out of routes that are not JSON: file downloads (answers) and multipart uploads
 * (requests). The HTTP shim streams them; in-process clients get the same data as a `Download`.
 */

/** What a binary route's handler answers; the HTTP shim streams `open()` as the response body. */
export interface BinaryBody {
  kind: 'binary';
  contentType: string;
  filename: string;
  size: number;
  open(): AsyncIterable<Uint8Array>;
}

/** What every client receives from a binary route. */
export interface Download {
  content_type: string;
  filename: string;
  size: number;
  bytes: Uint8Array;
}

/**
 * A file arriving in an upload, as a stream: the HTTP shim hands over the multipart part as it is
 * read from the socket, in-process clients their bytes. Never held whole in memory on the way.
 */
export interface UploadedFile {
  /** The part's filename (empty when it had none). */
  filename: string;
  /** The part's content type (`application/octet-stream` when it had none). */
  contentType: string;
  stream: AsyncIterable<Uint8Array>;
}

/** What an upload route's handler receives as its `body`. */
export interface ReceivedUpload extends UploadedFile {
  /**
   * To be called by the handler once the bytes are stored, with their SHA-256, before it changes
   * any state. This is where an `Idempotency-Key` is claimed: an upload's fingerprint is its
   * filename, content type and content, and the content is known only once it has streamed in.
   * Rejects with 409 idempotency_conflict or idempotency_key_in_use, or with a replay that the
   * dispatcher answers itself; the handler lets the rejection propagate.
   */
  received(sha256: string): Promise<void>;
}

/** What a client passes to an upload method. */
export interface UploadInput {
  filename: string;
  /** Default `application/octet-stream` (the service also goes by the filename's extension). */
  content_type?: string;
  /** The bytes; a `Blob` (e.g. `fs.openAsBlob(path)`) is streamed, not read whole. */
  data: Uint8Array | Blob;
}

/** Whether a value is an {@link UploadedFile}. */
export function isUploadedFile(value: unknown): value is UploadedFile {
  const file = value as Partial<UploadedFile> | null;
  return (
    typeof file === 'object' &&
    file !== null &&
    typeof file.filename === 'string' &&
    typeof file.contentType === 'string' &&
    typeof (file.stream as AsyncIterable<Uint8Array> | undefined)?.[Symbol.asyncIterator] === 'function'
  );
}

/**
 * The {@link UploadedFile} of a client's {@link UploadInput} (in-process transports); undefined
 * when the input is not one, which the dispatcher answers as a missing file.
 */
export function uploadedFileOf(input: unknown): UploadedFile | undefined {
  const upload = input as Partial<UploadInput> | null | undefined;
  const data = upload?.data;
  if (!upload || typeof upload.filename !== 'string' || !(data instanceof Uint8Array || data instanceof Blob)) return undefined;
  const stream =
    data instanceof Uint8Array
      ? (async function* () {
          yield data;
        })()
      : (data.stream() as unknown as AsyncIterable<Uint8Array>);
  return { filename: upload.filename, contentType: upload.content_type || 'application/octet-stream', stream };
}

/** Whether a handler result is a {@link BinaryBody}. */
export function isBinaryBody(value: unknown): value is BinaryBody {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'binary' && typeof (value as { open?: unknown }).open === 'function';
}

/** Reads a {@link BinaryBody} into a {@link Download}. */
export async function collectDownload(body: BinaryBody): Promise<Download> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body.open()) chunks.push(chunk);
  return { content_type: body.contentType, filename: body.filename, size: body.size, bytes: new Uint8Array(Buffer.concat(chunks)) };
}

/** `filename` parameter of a Content-Disposition header (RFC 6266, with an RFC 5987 UTF-8 form). */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/** The filename of a Content-Disposition header, preferring the UTF-8 form. */
export function filenameFromDisposition(header: string | null): string {
  if (!header) return '';
  const extended = /filename\*=UTF-8''([^;]+)/i.exec(header);
  if (extended) return decodeURIComponent(extended[1]!);
  return /filename="([^"]*)"/i.exec(header)?.[1] ?? '';
}
