import type { z } from 'zod';
import { inject, injectable } from '../shared/di.js';
import { Clock } from '../ports/clock.js';
import { Embedder } from '../ports/embedder.js';
import { EventLog } from '../ports/event-log.js';
import { Random } from '../ports/random.js';
import { Store, type StoreTransaction } from '../ports/store.js';
import { ApiError, notFound } from '../shared/api-error.js';
import { toIso } from '../shared/time.js';
import { MemoryConfig } from './memory-config.js';
import { MemoryIndexes } from './memory-index.js';
import { MEMORIES, type MemoryRecord } from './memory-records.js';
import type { CreateMemoryBody, CreatedMemory, Metadata, SearchMemoriesBody, SearchMemoriesResult } from './memory.schema.js';
import { Tokenizer } from '../ports/tokenizer.js';
import { exceedsTokens } from './tokens.js';
import { embedNormalized, encodeVector, scoreOf } from './vectors.js';

/** A memory ready to be written: its text, metadata and normalised vector. */
export interface PreparedMemory {
  content: string;
  metadata: Metadata;
  vector: Float32Array;
}

/**
 * Long-term semantic memory: memories are embedded when created, searched by cosine similarity
 * with strict-equality metadata filters applied before ranking, and deleted for good.
 */
@injectable()
export class MemoryService {
  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    @inject(Random) private readonly random: Random,
    @inject(EventLog) private readonly events: EventLog,
    @inject(Embedder) private readonly embedder: Embedder,
    @inject(MemoryIndexes) private readonly indexes: MemoryIndexes,
    @inject(MemoryConfig) private readonly config: MemoryConfig,
    @inject(Tokenizer) private readonly tokenizer: Tokenizer,
  ) {}

  /**
   * Stores a memory: its content is embedded, then kept with its metadata until deleted.
   * @throws ApiError 400 content_too_long (over 8,000 cl100k_base tokens)
   */
  async create(agentId: string, body: CreateMemoryBody): Promise<CreatedMemory> {
    const max = this.config.maxContentTokens;
    if (exceedsTokens(this.tokenizer, body.content, max)) throw new ApiError('content_too_long', `content: must be at most ${max} tokens (cl100k_base)`, 'content');
    const [vector] = await this.embed([body.content]);
    return this.store.transaction(async (tx) => this.insert(tx, agentId, { content: body.content, metadata: body.metadata ?? {}, vector: vector! }, { event: true }));
  }

  /**
   * The agent's memories most similar to `query`, best first, among those whose metadata holds
   * every pair of `metadata_filter`.
   * @throws ApiError 400 invalid_request (a query over 8,000 tokens)
   */
  async search(agentId: string, body: z.output<typeof SearchMemoriesBody>): Promise<SearchMemoriesResult> {
    const max = this.config.maxContentTokens;
    if (exceedsTokens(this.tokenizer, body.query, max)) throw new ApiError('invalid_request', `query: must be at most ${max} tokens (cl100k_base)`, 'query');
    const [query] = await this.embed([body.query]);
    const index = await this.indexes.forAgent(agentId);
    const memories: SearchMemoriesResult['memories'] = [];
    const hits = index.search(query!, body.limit, body.metadata_filter);
    const records = await Promise.all(hits.map((hit) => this.store.view.get<MemoryRecord>(MEMORIES, hit.id)));
    for (const [i, hit] of hits.entries()) {
      const record = records[i];
      // A deletion committed a moment ago may not have reached the index yet.
      if (!record || record.agent_id !== agentId) continue;
      memories.push({
        id: record.memory_id,
        content: record.content,
        score: scoreOf(this.embedder.score ? this.embedder.score(hit.similarity) : hit.similarity),
        metadata: { ...record.metadata },
        created_at: record.created_at,
      });
    }
    return { memories };
  }

  /**
   * Deletes a memory for good: it never appears in a search again.
   * @throws ApiError 404 not_found (unknown, or another agent's)
   */
  async delete(agentId: string, memoryId: string): Promise<void> {
    await this.store.transaction(async (tx) => {
      const record = await tx.get<MemoryRecord>(MEMORIES, memoryId);
      if (!record || record.agent_id !== agentId) throw notFound('memory');
      await tx.remove(MEMORIES, memoryId);
      await this.events.append(tx, { type: 'memory.deleted', agent_id: agentId, data: { memory_id: memoryId } });
      tx.afterCommit(() => this.indexes.removed(agentId, memoryId, record.metadata));
    });
  }

  /** Normalised vectors of texts, from the embedder. @throws ApiError 500 internal_error when it fails */
  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return embedNormalized(this.embedder, texts);
  }

  /**
   * Writes a prepared memory inside the caller's transaction (the drive adds a file's chunks in
   * the transaction that records the file). `event` appends `memory.created`.
   */
  async insert(tx: StoreTransaction, agentId: string, memory: PreparedMemory, options: { event: boolean }): Promise<CreatedMemory> {
    const memoryId = this.random.id('memory');
    const createdAt = toIso(this.clock.now());
    const record: MemoryRecord = {
      memory_id: memoryId,
      agent_id: agentId,
      content: memory.content,
      metadata: { ...memory.metadata },
      created_at: createdAt,
      embedding_model: this.embedder.model,
      vector: encodeVector(memory.vector),
    };
    await tx.insert(MEMORIES, memoryId, record, agentId);
    if (options.event) await this.events.append(tx, { type: 'memory.created', agent_id: agentId, data: { memory_id: memoryId } });
    tx.afterCommit(() => this.indexes.added(agentId, memoryId, memory.vector, record.metadata));
    return { memory_id: memoryId, created_at: createdAt };
  }
}
