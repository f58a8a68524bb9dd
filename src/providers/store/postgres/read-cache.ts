import { keyOf } from './record-keys.js';

/**
 * Counts, pages and records a process read on a PostgreSQL world, kept so that a unit can answer the same
 * read again without a round trip. A cached answer is never trusted: the unit that uses one queues
 * a statement that checks it against the database (`agent_services_expect`, in the unit's next
 * batch or with its COMMIT), and a stale one fails that unit, which runs again (and the read is
 * made afresh). The cache only saves round trips on what rarely changes (an agent's record and
 * webhook count, the oldest rows of an expiry index); a read found stale is not cached again for
 * a while, and a commit of this process forgets what it changed.
 */
export class ReadCache {
  /** Entries each map keeps at most (the oldest go first): the process's memory stays flat as the world grows. */
  static readonly MAX_ENTRIES = 4096;
  private readonly counts = new Map<string, number>();
  private readonly pages = new Map<string, CachedPage>();
  /** Records read through the view inside units: their text and version. */
  /** Records, each with the generation of its collection when kept: one of an older generation is forgotten. */
  private readonly records = new Map<string, { collection: string; text: string; version: number; generation: number }>();
  /** Per collection: bumped when a commit of this process changed it (a read begun before it is not kept). */
  private readonly generations = new Map<string, number>();
  /** Reads found stale, and until when (ms, process time) they are not cached. */
  private readonly cooling = new Map<string, number>();

  /** The generation of `collection`, to hand back to {@link keepCount} or {@link keepPage}. */
  generation(collection: string): number {
    return this.generations.get(collection) ?? 0;
  }

  count(collection: string, partition: string): number | undefined {
    return this.counts.get(countKey(collection, partition));
  }

  /** Keeps a count read at `generation` (unless the collection changed since, or the read is cooling). */
  keepCount(collection: string, partition: string, count: number, generation: number): void {
    const key = countKey(collection, partition);
    if (generation === this.generation(collection) && !this.isCooling(key)) bounded(this.counts).set(key, count);
  }

  record(collection: string, id: string): { collection: string; text: string; version: number } | undefined {
    const key = recordKey(collection, id);
    const kept = this.records.get(key);
    if (!kept || kept.generation === this.generation(collection)) return kept;
    this.records.delete(key);
    return undefined;
  }

  /** Keeps a record read at `generation` (as {@link keepCount}). */
  keepRecord(collection: string, id: string, text: string, version: number, generation: number): void {
    const key = recordKey(collection, id);
    if (generation === this.generation(collection) && !this.isCooling(key)) bounded(this.records).set(key, { collection, text, version, generation });
  }

  page(key: string): CachedPage | undefined {
    return this.pages.get(key);
  }

  /** Keeps a page read at `generation` (as {@link keepCount}). */
  keepPage(key: string, page: CachedPage, generation: number): void {
    if (generation === this.generation(page.collection) && !this.isCooling(key)) bounded(this.pages).set(key, page);
  }

  /** A cached read failed its check: forgotten, and not cached for the next 10 s. */
  stale(key: string): void {
    this.counts.delete(key);
    this.pages.delete(key);
    this.records.delete(key);
    bounded(this.cooling).set(key, Date.now() + 10_000);
  }

  /**
   * A commit of this process changed these collections: counts of the partitions it inserted into
   * and every count of a collection it removed from are forgotten, and every page of a changed
   * collection except an oldest-first page that was full (inserts take the newest positions, so
   * they never enter one; updates and removals may change any).
   */
  committed(inserted: ReadonlySet<string>, rewritten: ReadonlySet<string>): void {
    if (inserted.size === 0 && rewritten.size === 0) return;
    const touched = new Set<string>();
    for (const key of inserted) touched.add(key.slice(0, key.indexOf('\u001f')));
    for (const collection of rewritten) touched.add(collection);
    for (const collection of touched) this.generations.set(collection, this.generation(collection) + 1);
    for (const key of this.counts.keys()) {
      if (inserted.has(key) || rewritten.has(key.slice(0, key.indexOf('\u001f')))) this.counts.delete(key);
    }
    // Records of a changed collection are forgotten as they are next asked for (their generation).
    for (const [key, page] of this.pages) {
      if (rewritten.has(page.collection)) this.pages.delete(key);
      else if (inserted.has(countKey(page.collection, page.partition)) && !(page.order === 'oldest' && page.hasMore)) this.pages.delete(key);
    }
  }

  private isCooling(key: string): boolean {
    const until = this.cooling.get(key);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.cooling.delete(key);
    return false;
  }
}

/** `map`, with its oldest entry dropped when it is full. */
function bounded<K, V>(map: Map<K, V>): Map<K, V> {
  if (map.size >= ReadCache.MAX_ENTRIES) map.delete(map.keys().next().value as K);
  return map;
}

/** A page as read: its rows in page order, and whether more followed. */
export interface CachedPage {
  collection: string;
  partition: string;
  order: 'oldest' | 'newest';
  rows: ReadonlyArray<{ id: string; record: string; position: number; version: number }>;
  hasMore: boolean;
}

/** The key of a cached record. */
export function recordKey(collection: string, id: string): string {
  return `record\u001f${keyOf(collection, id)}`;
}

/** The key of a count (and of the partition an insert went to): shaped as a record's key, so {@link ReadCache.committed} finds the collection before the first separator. */
export const countKey: (collection: string, partition: string) => string = keyOf;
