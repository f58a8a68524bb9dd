import type { BlobStore } from '../ports/blob-store.js';

/**
 * The bytes of a blob a record refers to. Callers answer 404 for records that do not exist; a
 * record whose blob has gone missing is a broken store, reported as an error rather than read as
 * empty bytes (which would, say, mail an empty attachment without a word).
 */
export function blobBytes(blobs: BlobStore, sha256: string): AsyncIterable<Uint8Array> {
  const bytes = blobs.open(sha256);
  if (!bytes) throw new Error(`blob ${sha256} is missing from the blob store`);
  return bytes;
}
