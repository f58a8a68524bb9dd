import { inject, injectable } from '../shared/di.js';
import { Embedder } from '../ports/embedder.js';
import { Store } from '../ports/store.js';
import { VectorIndexFactory, type VectorHit, type VectorIndex } from '../ports/vector-index.js';
import type { Metadata } from './memory.schema.js';
import { MEMORIES, type MemoryRecord } from './memory-records.js';
import { decodeVector, embedNormalized, encodeVector } from './vectors.js';

/** Memories embedded again per embedder call when an index is built. */
const REEMBED_BATCH = 64;

/** The key of one metadata pair in the postings. */
function pairKey(key: string, value: string): string {
  return `${key.length}:${key}=${value}`;
}

/**
 * One agent's search structures: its vector index and, for metadata filters, the ids of its
 * memories by metadata pair. Derived state, rebuilt from the store on demand.
 */
export class AgentIndex {
  private vectors: VectorIndex | undefined;
  private readonly postings = new Map<string, Set<string>>();

  constructor(private readonly factory: VectorIndexFactory) {}

  /** Adds a memory (again adding one is a no-op). */
  add(id: string, vector: Float32Array, metadata: Metadata): void {
    this.vectors ??= this.factory.create(vector.length);
    if (this.vectors.has(id)) return;
    this.vectors.add(id, vector);
    for (const [key, value] of Object.entries(metadata)) {
      const pair = pairKey(key, value);
      let ids = this.postings.get(pair);
      if (!ids) this.postings.set(pair, (ids = new Set()));
      ids.add(id);
    }
  }

  /** Removes a memory (removing one that is absent is a no-op). */
  remove(id: string, metadata: Metadata): void {
    if (!this.vectors?.remove(id)) return;
    for (const [key, value] of Object.entries(metadata)) {
      const pair = pairKey(key, value);
      const ids = this.postings.get(pair);
      ids?.delete(id);
      if (ids?.size === 0) this.postings.delete(pair);
    }
  }

  /**
   * The ids whose metadata holds every pair of `filter` (strict equality), or undefined for no
   * filter (everything qualifies).
   */
  private matching(filter: Metadata | undefined): ReadonlySet<string> | undefined {
    const pairs = Object.entries(filter ?? {});
    if (pairs.length === 0) return undefined;
    const sets: Array<Set<string>> = [];
    for (const [key, value] of pairs) {
      const ids = this.postings.get(pairKey(key, value));
      if (!ids) return new Set();
      sets.push(ids);
    }
    sets.sort((a, b) => a.size - b.size);
    const [smallest, ...others] = sets;
    if (others.length === 0) return smallest;
    const result = new Set<string>();
    for (const id of smallest!) if (others.every((ids) => ids.has(id))) result.add(id);
    return result;
  }

  /**
   * The `limit` memories most similar to `query` among those whose metadata matches `filter`:
   * the filter is applied first, so a filtered search answers the best matches inside it.
   */
  search(query: Float32Array, limit: number, filter: Metadata | undefined): VectorHit[] {
    const allowed = this.matching(filter);
    if (!this.vectors || allowed?.size === 0) return [];
    if (query.length !== this.vectors.dimension) return [];
    return this.vectors.search(query, limit, allowed);
  }
}

/**
 * The search indexes of every agent (each agent's own, so searches are isolated by
 * construction). An agent's index is built from the store on first use and then kept current by
 * the memory service's commits; a restore drops them all. Memories whose vector came from
 * another embedder (or has none, as in a hand-written snapshot) are embedded again first.
 */
@injectable()
export class MemoryIndexes {
  private readonly ready = new Map<string, AgentIndex>();
  private readonly building = new Map<string, Promise<AgentIndex>>();
  /** Per build under way, the committed changes of its agent that arrived while it read the store. */
  private readonly journals = new Set<{ agentId: string; changes: Array<(index: AgentIndex) => void> }>();
  private generation = 0;

  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Embedder) private readonly embedder: Embedder,
    @inject(VectorIndexFactory) private readonly factory: VectorIndexFactory,
  ) {
    // Another process serving the same world stored or removed memories: rebuild on next use.
    store.shared?.onRemoteCommit(() => this.invalidate(), { collections: [MEMORIES] });
  }

  /** The agent's index, built first if needed. */
  async forAgent(agentId: string): Promise<AgentIndex> {
    const ready = this.ready.get(agentId);
    if (ready) return ready;
    let building = this.building.get(agentId);
    if (!building) {
      const started = this.build(agentId).finally(() => {
        if (this.building.get(agentId) === started) this.building.delete(agentId);
      });
      this.building.set(agentId, (building = started));
    }
    return building;
  }

  /** Applies a committed new memory to a built index (an unbuilt one will read it from the store). */
  added(agentId: string, id: string, vector: Float32Array, metadata: Metadata): void {
    this.ready.get(agentId)?.add(id, vector, metadata);
    this.journal(agentId, (index) => index.add(id, vector, metadata));
  }

  /** Applies a committed deletion to a built index. */
  removed(agentId: string, id: string, metadata: Metadata): void {
    this.ready.get(agentId)?.remove(id, metadata);
    this.journal(agentId, (index) => index.remove(id, metadata));
  }

  /** Keeps a committed change for the builds of the agent's index that are reading the store. */
  private journal(agentId: string, change: (index: AgentIndex) => void): void {
    for (const journal of this.journals) if (journal.agentId === agentId) journal.changes.push(change);
  }

  /** Forgets every index (after a restore replaced the store); they are rebuilt on next use. */
  invalidate(): void {
    this.generation++;
    this.ready.clear();
    this.building.clear();
  }

  /**
   * Reads the agent's memories into a new index and publishes it. Memories whose vector is
   * missing, unreadable or of another model are embedded again (once per build), then the
   * memories are read afresh. The changes committed while the read is under way are journalled
   * and applied to the new index before it is published (adding twice and removing an absent
   * memory change nothing), and from the read's answer to publishing nothing awaits, so no commit
   * is lost between the read and the updates that follow it. A restore during the read starts over.
   */
  private async build(agentId: string): Promise<AgentIndex> {
    const model = this.embedder.model;
    for (let reembedded = false; ; ) {
      const generation = this.generation;
      const journal = { agentId, changes: [] as Array<(index: AgentIndex) => void> };
      this.journals.add(journal);
      let rows: Array<{ record: MemoryRecord }>;
      try {
        rows = (await this.store.view.page<MemoryRecord>(MEMORIES, { partition: agentId, limit: Number.MAX_SAFE_INTEGER })).items;
      } finally {
        this.journals.delete(journal);
      }
      if (generation !== this.generation) {
        reembedded = false;
        continue;
      }
      const index = new AgentIndex(this.factory);
      const stale: MemoryRecord[] = [];
      for (let i = rows.length - 1; i >= 0; i--) {
        const record = rows[i]!.record;
        const vector = record.embedding_model === model && typeof record.vector === 'string' ? decodeVector(record.vector) : undefined;
        if (vector) index.add(record.memory_id, vector, record.metadata);
        else stale.push(record);
      }
      if (stale.length === 0 || reembedded) {
        for (const change of journal.changes) change(index);
        this.ready.set(agentId, index);
        return index;
      }
      await this.reembed(stale);
      // A restore meanwhile replaced the store: start over, re-embedding included.
      reembedded = generation === this.generation;
    }
  }

  /** Embeds memories again with the current embedder and stores their new vectors. */
  private async reembed(stale: readonly MemoryRecord[]): Promise<void> {
    const model = this.embedder.model;
    for (let start = 0; start < stale.length; start += REEMBED_BATCH) {
      const batch = stale.slice(start, start + REEMBED_BATCH);
      const vectors = await embedNormalized(
        this.embedder,
        batch.map((record) => record.content),
      );
      await this.store.transaction(async (tx) => {
        for (const [i, record] of batch.entries()) {
          const current = await tx.get<MemoryRecord>(MEMORIES, record.memory_id);
          if (current && current.content === record.content) await tx.update(MEMORIES, record.memory_id, { ...current, embedding_model: model, vector: encodeVector(vectors[i]!) });
        }
      });
    }
  }
}
