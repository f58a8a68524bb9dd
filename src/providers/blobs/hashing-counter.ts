import { createHash } from 'node:crypto';
import { ApiError } from '../../core/shared/api-error.js';

/** Feeds chunks through SHA-256 and a size limit; shared by the blob store adapters. */
export class HashingCounter {
  private readonly hash = createHash('sha256');
  size = 0;

  constructor(private readonly maxBytes: number = Number.POSITIVE_INFINITY) {}

  /** Accounts for one chunk. @throws ApiError 413 payload_too_large past the limit */
  add(chunk: Uint8Array): void {
    this.size += chunk.byteLength;
    if (this.size > this.maxBytes) throw new ApiError('payload_too_large', `content over ${this.maxBytes} bytes`);
    this.hash.update(chunk);
  }

  /** The hex digest (call once, at the end). */
  digest(): string {
    return this.hash.digest('hex');
  }
}

/** Iterates bytes or an async source uniformly. */
export async function* chunksOf(source: AsyncIterable<Uint8Array> | Uint8Array): AsyncIterable<Uint8Array> {
  if (source instanceof Uint8Array) yield source;
  else yield* source;
}
