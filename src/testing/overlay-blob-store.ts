import type { BlobRef, BlobStore } from '../core/ports/blob-store.js';
import { MemoryBlobStore } from '../providers/blobs/memory-blob-store.js';

/**
 * The blobs of a world restored from a fixture: reads fall through to the fixture's blobs, writes
 * stay in this world. Blobs are content-addressed and never removed, so sharing the base is safe
 * and a restored world costs no copy of file bytes.
 */
export class OverlayBlobStore implements BlobStore {
  private readonly own = new MemoryBlobStore();

  constructor(private readonly base: BlobStore) {}

  put(source: AsyncIterable<Uint8Array> | Uint8Array, options?: { maxBytes?: number }): Promise<BlobRef> {
    return this.own.put(source, options);
  }

  open(sha256: string): AsyncIterable<Uint8Array> | undefined {
    return this.own.open(sha256) ?? this.base.open(sha256);
  }

  async has(sha256: string): Promise<boolean> {
    return (await this.own.has(sha256)) || this.base.has(sha256);
  }
}
