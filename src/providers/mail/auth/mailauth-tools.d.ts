// mailauth ships no typings for its tools module; these are the functions the service uses.
declare module 'mailauth/lib/tools.js' {
  /** Splits a header block into fields: lower-case key, name as written, the field's raw bytes (folding kept). */
  /** One resinfo of an Authentication-Results header (RFC 8601 §2.2): `method=result (comment) ptype.prop=value ...`. */
  export function formatAuthHeaderRow(method: string, status: object, options?: { strict?: boolean }): string;
  export function parseHeaders(buf: Buffer): { parsed: Array<{ key: string | null; casedKey?: string; line: Buffer }>; original: Buffer };
}
