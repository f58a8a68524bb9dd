import type { Sql } from 'postgres';
import type { BlobRef, BlobStore } from '../../core/ports/blob-store.js';
import { HashingCounter, chunksOf } from './hashing-counter.js';

/** Bytes a stored chunk holds at most: a download reads one chunk at a time. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * Blobs in the PostgreSQL database every process of a world shares, in chunks of 1 MiB under
 * their SHA-256: a file uploaded through one process downloads through any other, and a backup
 * of the database holds them. Content-addressed and never removed, like the other blob stores.
 * Chunk 0 always exists (empty for an empty blob), so it tells whether a blob is stored.
 */
export class PostgresBlobStore implements BlobStore {
  constructor(private readonly sql: Sql) {}

  async put(source: AsyncIterable<Uint8Array> | Uint8Array, options: { maxBytes?: number } = {}): Promise<BlobRef> {
    const counter = new HashingCounter(options.maxBytes);
    const chunks: Buffer[] = [];
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    const cut = () => {
      const joined = Buffer.concat(pending);
      for (let at = 0; at + CHUNK_BYTES <= joined.byteLength; at += CHUNK_BYTES) chunks.push(joined.subarray(at, at + CHUNK_BYTES));
      const rest = joined.subarray(joined.byteLength - (joined.byteLength % CHUNK_BYTES));
      pending = rest.byteLength > 0 ? [rest] : [];
      pendingBytes = rest.byteLength;
    };
    for await (const chunk of chunksOf(source)) {
      counter.add(chunk);
      pending.push(chunk);
      pendingBytes += chunk.byteLength;
      if (pendingBytes >= CHUNK_BYTES) cut();
    }
    if (pendingBytes > 0 || chunks.length === 0) chunks.push(Buffer.concat(pending));
    const sha256 = counter.digest();
    if (!(await this.has(sha256))) {
      await this.sql.begin(async (tx) => {
        for (let index = 0; index < chunks.length; index++) {
          await tx`INSERT INTO agent_services_blobs (key, chunk, bytes) VALUES (${sha256}, ${index}, ${chunks[index]!}) ON CONFLICT DO NOTHING`;
        }
      });
    }
    return { sha256, size: counter.size };
  }

  open(sha256: string): AsyncIterable<Uint8Array> | undefined {
    const sql = this.sql;
    return (async function* () {
      for (let index = 0; ; index++) {
        const [row] = await sql`SELECT bytes FROM agent_services_blobs WHERE key = ${sha256} AND chunk = ${index}`;
        if (!row) {
          if (index === 0) throw new Error(`blob ${sha256} is missing from the database`);
          return;
        }
        const bytes = row.bytes as Buffer;
        if (bytes.byteLength > 0) yield new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      }
    })();
  }

  async has(sha256: string): Promise<boolean> {
    const [row] = await this.sql`SELECT 1 AS found FROM agent_services_blobs WHERE key = ${sha256} AND chunk = 0`;
    return row !== undefined;
  }
}
