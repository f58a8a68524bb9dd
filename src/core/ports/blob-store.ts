import type { ServiceIdentifier } from '../shared/di.js';

/** A stored blob's address and size. */
export interface BlobRef {
  /** Lower-case hex SHA-256 of the content: the blob's address. */
  sha256: string;
  size: number;
}

/**
 * Content-addressed bytes (attachments, drive files, sandbox files). Records in the store refer to
 * blobs by hash, so snapshots stay small JSON and a restored snapshot still finds its bytes; equal
 * contents are stored once.
 */
export interface BlobStore {
  /**
   * Stores bytes read from `source`; with `maxBytes`, rejects as soon as more arrive and keeps
   * nothing. @throws ApiError 413 payload_too_large
   */
  put(source: AsyncIterable<Uint8Array> | Uint8Array, options?: { maxBytes?: number }): Promise<BlobRef>;
  /** Streams a blob, or undefined when there is none with that hash. */
  open(sha256: string): AsyncIterable<Uint8Array> | undefined;
  /** Whether a blob is stored. */
  has(sha256: string): Promise<boolean>;
}

/** Injection token of {@link BlobStore}. */
export const BlobStore = Symbol.for('agent-services/BlobStore') as ServiceIdentifier<BlobStore>;
