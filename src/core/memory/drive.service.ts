import type { z } from 'zod';
import type { BinaryBody, ReceivedUpload } from '../api/binary.js';
import { inject, injectable } from '../shared/di.js';
import { BlobStore, type BlobRef } from '../ports/blob-store.js';
import { Clock } from '../ports/clock.js';
import { DocumentExtractor, type DocumentKind } from '../ports/document-extractor.js';
import { EventLog } from '../ports/event-log.js';
import { Random } from '../ports/random.js';
import { Store, type StoreView } from '../ports/store.js';
import { ApiError, notFound } from '../shared/api-error.js';
import { decodeCursor, encodeCursor } from '../shared/cursor.js';
import { ServiceConfig } from '../shared/service-config.js';
import { toIso } from '../shared/time.js';
import { documentKindOf, servedContentType } from './document-kinds.js';
import { MemoryConfig } from './memory-config.js';
import { FILES, type FileRecord } from './memory-records.js';
import type { FileList, FileObject, ListFilesQuery } from './memory.schema.js';
import { MemoryService, type PreparedMemory } from './memory.service.js';
import { Tokenizer } from '../ports/tokenizer.js';
import { TokenChunker } from './tokens.js';
import { blobBytes } from '../services/blob-bytes.js';

/** Chunks embedded per embedder call while a document is indexed. */
const EMBED_BATCH = 64;
/** Longest accepted filename, in characters. */
const FILENAME_MAX = 1024;

/** Marks a failure of reading the document (as opposed to the embedder or the store). */
class ExtractionFailed extends Error {}

/** Wraps an extractor's output so its failures are told apart from the consumer's. */
async function* guarded(source: AsyncIterable<string>): AsyncIterable<string> {
  try {
    yield* source;
  } catch (error) {
    throw new ExtractionFailed(String(error));
  }
}

/**
 * The agent's file drive: uploads streamed into the blob store (never whole in memory), the
 * text of PDF, DOCX, TXT, MD, CSV and XLSX files extracted, cut into token chunks and indexed as
 * memories; listing newest first; downloads only for the owning agent.
 */
@injectable()
export class DriveService {
  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    @inject(Random) private readonly random: Random,
    @inject(EventLog) private readonly events: EventLog,
    @inject(BlobStore) private readonly blobs: BlobStore,
    @inject(DocumentExtractor) private readonly extractor: DocumentExtractor,
    @inject(MemoryService) private readonly memories: MemoryService,
    @inject(MemoryConfig) private readonly config: MemoryConfig,
    @inject(ServiceConfig) private readonly service: ServiceConfig,
    @inject(Tokenizer) private readonly tokenizer: Tokenizer,
  ) {}

  /**
   * Stores an uploaded file and, for the indexed formats, makes its text searchable as memories
   * with metadata `source: "file"`, `file_id`, `file_name`, `chunk_index`.
   * @throws ApiError 413 payload_too_large (over the upload limit; nothing is kept),
   *   400 invalid_request (filename too long), 409 idempotency_conflict / idempotency_key_in_use
   */
  async upload(agentId: string, file: ReceivedUpload): Promise<FileObject> {
    const name = file.filename || 'file';
    if ([...name].length > FILENAME_MAX) throw new ApiError('invalid_request', `file: the filename must be at most ${FILENAME_MAX} characters`, 'file');
    const blob = await this.blobs.put(file.stream, { maxBytes: this.config.maxUploadBytes });
    await file.received(blob.sha256);
    const kind = documentKindOf(name, file.contentType);
    const chunks = kind ? await this.indexText(kind, blob) : [];
    return this.store.transaction(async (tx) => {
      const fileId = this.random.id('file');
      const record: FileRecord = {
        file_id: fileId,
        agent_id: agentId,
        name,
        size: blob.size,
        sha256: blob.sha256,
        content_type: servedContentType(file.contentType, kind),
        indexed: chunks.length > 0,
        chunks: chunks.length,
        created_at: toIso(this.clock.now()),
      };
      await tx.insert(FILES, fileId, record, agentId);
      await this.events.append(tx, { type: 'file.uploaded', agent_id: agentId, data: { file_id: fileId, name, size: blob.size } });
      for (const [index, chunk] of chunks.entries()) {
        const metadata = { source: 'file', file_id: fileId, file_name: name, chunk_index: String(index) };
        await this.memories.insert(tx, agentId, { ...chunk, metadata }, { event: false });
      }
      if (chunks.length > 0) await this.events.append(tx, { type: 'file.indexed', agent_id: agentId, data: { file_id: fileId, chunks: chunks.length } });
      return this.toFile(record);
    });
  }

  /** The agent's files, newest first. @throws ApiError 400 invalid_request (bad cursor) */
  async list(agentId: string, query: z.output<typeof ListFilesQuery>): Promise<FileList> {
    const before = query.cursor === undefined ? undefined : decodeCursor(FILES, query.cursor);
    const [page, total] = await Promise.all([this.store.view.page<FileRecord>(FILES, { partition: agentId, limit: query.limit, ...(before === undefined ? {} : { before }) }), this.store.view.count(FILES, agentId)]);
    const last = page.items[page.items.length - 1];
    return {
      files: page.items.map((item) => this.toFile(item.record)),
      next_cursor: page.hasMore && last ? encodeCursor(FILES, last.position) : null,
      total,
    };
  }

  /** A file as the API answers it, read in `view` (a transaction's, for events), or undefined. */
  async fileOf(view: StoreView, fileId: string): Promise<FileObject | undefined> {
    const record = await view.get<FileRecord>(FILES, fileId);
    return record && this.toFile(record);
  }

  /** The bytes of one of the agent's files. @throws ApiError 404 not_found (unknown, or another agent's) */
  async download(agentId: string, fileId: string): Promise<BinaryBody> {
    const record = await this.store.view.get<FileRecord>(FILES, fileId);
    if (!record || record.agent_id !== agentId || !(await this.blobs.has(record.sha256))) throw notFound('file');
    return {
      kind: 'binary',
      contentType: record.content_type,
      filename: record.name,
      size: record.size,
      open: () => this.openBlob(record.sha256),
    };
  }

  /**
   * The text of a stored document as prepared memories: extracted as it streams, cut into
   * overlapping token chunks, embedded in batches, and capped at `maxChunksPerFile` (reading stops
   * there, so a huge file costs no more than the cap). An unreadable document gives none.
   */
  private async indexText(kind: DocumentKind, blob: BlobRef): Promise<Array<Omit<PreparedMemory, 'metadata'>>> {
    const max = this.config.maxChunksPerFile;
    const chunker = new TokenChunker(this.tokenizer, { chunkTokens: this.config.chunkTokens, overlapTokens: this.config.chunkOverlapTokens });
    const prepared: Array<Omit<PreparedMemory, 'metadata'>> = [];
    let batch: string[] = [];
    const flush = async () => {
      const vectors = await this.memories.embed(batch);
      batch.forEach((content, i) => prepared.push({ content, vector: vectors[i]! }));
      batch = [];
    };
    const take = async (chunks: string[]): Promise<boolean> => {
      for (const chunk of chunks) {
        if (prepared.length + batch.length >= max) return false;
        batch.push(chunk);
        if (batch.length >= EMBED_BATCH) await flush();
      }
      return prepared.length + batch.length < max;
    };
    try {
      let more = true;
      for await (const piece of guarded(this.extractor.extract(kind, () => this.openBlob(blob.sha256), blob.size))) {
        if (!(more = await take(chunker.push(piece)))) break;
      }
      if (more) await take(chunker.finish());
    } catch (error) {
      if (error instanceof ExtractionFailed) return [];
      throw error;
    }
    await flush();
    return prepared;
  }

  /** The bytes of a stored blob (none when it has gone missing). */
  private openBlob(sha256: string): AsyncIterable<Uint8Array> {
    return blobBytes(this.blobs, sha256);
  }

  private toFile(record: FileRecord): FileObject {
    return {
      file_id: record.file_id,
      name: record.name,
      size: record.size,
      url: `${this.service.filesUrl}/files/${record.file_id}`,
      indexed: record.indexed,
      created_at: record.created_at,
    };
  }
}
