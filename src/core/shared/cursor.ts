import { ApiError } from './api-error.js';

/**
 * Opaque keyset cursors. A cursor names the store position of the last record of a page and the
 * list it belongs to, so a cursor from one list cannot silently page another.
 */
export function encodeCursor(list: string, position: number): string {
  return Buffer.from(JSON.stringify({ l: list, p: position })).toString('base64url');
}

/**
 * Decodes a cursor made by {@link encodeCursor} for the same list.
 * @throws ApiError 400 invalid_request (param `cursor`) for anything else.
 */
export function decodeCursor(list: string, cursor: string): number {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { l?: unknown; p?: unknown };
    if (parsed.l === list && Number.isSafeInteger(parsed.p) && (parsed.p as number) >= 0) return parsed.p as number;
  } catch {
    // fall through to the uniform error below
  }
  throw new ApiError('invalid_request', 'cursor is not a cursor of this list', 'cursor');
}
