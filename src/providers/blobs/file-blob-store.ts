import { createReadStream, createWriteStream, existsSync, mkdirSync, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import type { BlobRef, BlobStore } from '../../core/ports/blob-store.js';
import { HashingCounter, chunksOf } from './hashing-counter.js';

/**
 * Ends a half-written file and removes it. The stream opens its file asynchronously, so a stream
 * destroyed early may still create the file after a plain `rm`: the removal waits for the close.
 */
async function discard(out: WriteStream, file: string): Promise<void> {
  if (!out.closed) {
    const closed = once(out, 'close').catch(() => undefined);
    out.destroy();
    await closed;
  }
  await rm(file, { force: true });
}

/**
 * Blobs as files named by their hash in a directory (beside a `--data` file), streamed in and out
 * so a 500 MB upload never sits whole in memory. A blob appears under its name only once complete.
 */
export class FileBlobStore implements BlobStore {
  private sequence = 0;

  constructor(private readonly directory: string) {
    mkdirSync(directory, { recursive: true });
  }

  async put(source: AsyncIterable<Uint8Array> | Uint8Array, options: { maxBytes?: number } = {}): Promise<BlobRef> {
    const temporary = path.join(this.directory, `.incoming-${process.pid}-${this.sequence++}`);
    const counter = new HashingCounter(options.maxBytes);
    const out = createWriteStream(temporary);
    try {
      for await (const chunk of chunksOf(source)) {
        counter.add(chunk);
        if (!out.write(chunk)) await once(out, 'drain');
      }
      out.end();
      await once(out, 'finish');
    } catch (error) {
      await discard(out, temporary);
      throw error;
    }
    const sha256 = counter.digest();
    const target = this.pathOf(sha256);
    if (existsSync(target)) await rm(temporary, { force: true });
    else await rename(temporary, target);
    return { sha256, size: counter.size };
  }

  open(sha256: string): AsyncIterable<Uint8Array> | undefined {
    if (!this.exists(sha256)) return undefined;
    return createReadStream(this.pathOf(sha256));
  }

  async has(sha256: string): Promise<boolean> {
    return this.exists(sha256);
  }

  private exists(sha256: string): boolean {
    return /^[0-9a-f]{64}$/.test(sha256) && existsSync(this.pathOf(sha256));
  }

  private pathOf(sha256: string): string {
    return path.join(this.directory, sha256);
  }
}
