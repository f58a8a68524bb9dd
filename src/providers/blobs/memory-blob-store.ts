import type { BlobRef, BlobStore } from '../../core/ports/blob-store.js';
import { HashingCounter, chunksOf } from './hashing-counter.js';

/** Blobs in memory, for tests and simulations. */
export class MemoryBlobStore implements BlobStore {
  private readonly blobs = new Map<string, Buffer>();

  async put(source: AsyncIterable<Uint8Array> | Uint8Array, options: { maxBytes?: number } = {}): Promise<BlobRef> {
    const counter = new HashingCounter(options.maxBytes);
    const chunks: Uint8Array[] = [];
    for await (const chunk of chunksOf(source)) {
      counter.add(chunk);
      chunks.push(chunk);
    }
    const sha256 = counter.digest();
    if (!this.blobs.has(sha256)) this.blobs.set(sha256, Buffer.concat(chunks));
    return { sha256, size: counter.size };
  }

  open(sha256: string): AsyncIterable<Uint8Array> | undefined {
    const blob = this.blobs.get(sha256);
    if (!blob) return undefined;
    return (async function* () {
      yield new Uint8Array(blob);
    })();
  }

  async has(sha256: string): Promise<boolean> {
    return this.blobs.has(sha256);
  }
}
