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
