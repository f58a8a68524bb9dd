import { createRequire } from 'node:module';
import type { HierarchicalNSW } from 'hnswlib-node';
import type { VectorHit, VectorIndex, VectorIndexFactory } from '../../core/ports/vector-index.js';
import { ExactVectorIndex } from './exact-vector-index.js';

/** Loads hnswlib's native addon the first time a graph is built, not when the runtime starts. */
const loadHnswlib = (() => {
  let module: typeof import('hnswlib-node') | undefined;
  // Synchronous, as the VectorIndex port is; the package is CommonJS.
  return () => (module ??= createRequire(import.meta.url)('hnswlib-node') as typeof import('hnswlib-node'));
})();

/** Tuning of {@link HnswVectorIndex}. */
export interface HnswOptions {
  /** Links per node (hnswlib `M`, default 16). */
  m?: number;
  /** Candidate list while inserting (default 200). */
  efConstruction?: number;
  /** Candidate list while searching, raised to k when k is larger (default 256). */
  efSearch?: number;
  /** Below this many vectors search is exact and no graph is kept (default 0: a graph from the first search). */
  minGraphSize?: number;
  /**
   * A restricted search over at most this many allowed vectors is done exactly (default 2,048):
   * cheap, and a graph walk through a very selective filter may find fewer than k.
   */
  exactRestrictionSize?: number;
  /** Seed of hnswlib's level generator (default 100), so the same inserts build the same graph. */
  seed?: number;
}

/**
 * Approximate nearest-neighbour search with hnswlib (HNSW graph, inner-product space over
 * normalised vectors, i.e. cosine). The vectors are also kept in an {@link ExactVectorIndex}:
 * small indexes and selective restrictions are searched exactly, a graph walk that finds fewer
 * than it should under a restriction falls back to the exact scan, and every hit's similarity
 * is recomputed exactly, so scores do not depend on the adapter.
 *
 * The graph is built by the first search that finds the index at `minGraphSize` or above, in the
 * background: a few milliseconds of insertions per event-loop turn, searching exactly meanwhile,
 * so rebuilding a large index after a restart never blocks the server for long. Once the graph
 * has caught up, each add goes straight into it.
 */
export class HnswVectorIndex implements VectorIndex {
  private readonly exact: ExactVectorIndex;
  private graph: HierarchicalNSW | undefined;
  private readonly labels = new Map<string, number>();
  private readonly idsByLabel = new Map<number, string>();
  private nextLabel = 0;
  private deletedInGraph = 0;
  /** Ids stored but not yet in the graph, oldest first, from `backlogNext` on. */
  private backlog: string[] = [];
  private backlogNext = 0;
  private catchUpScheduled = false;
  private readonly m: number;
  private readonly efConstruction: number;
  private readonly efSearch: number;
  private readonly minGraphSize: number;
  private readonly exactRestrictionSize: number;
  private readonly seed: number;

  constructor(
    readonly dimension: number,
    options: HnswOptions = {},
  ) {
    this.exact = new ExactVectorIndex(dimension);
    this.m = options.m ?? 16;
    this.efConstruction = options.efConstruction ?? 200;
    this.efSearch = options.efSearch ?? 256;
    this.minGraphSize = options.minGraphSize ?? 0;
    this.exactRestrictionSize = options.exactRestrictionSize ?? 2048;
    this.seed = options.seed ?? 100;
  }

  get size(): number {
    return this.exact.size;
  }

  /** Whether searches use the HNSW graph: it exists and holds every stored vector. */
  get hasGraph(): boolean {
    return this.graph !== undefined && this.backlogNext >= this.backlog.length;
  }

  /** Builds the graph now, synchronously, from every stored vector (for benchmarks and tests). */
  buildGraph(): void {
    this.startGraph();
    this.catchUp(Number.POSITIVE_INFINITY);
  }

  /** Resolves once the graph holds every stored vector (starting it if needed). */
  async whenGraphReady(): Promise<void> {
    this.startGraph();
    while (!this.hasGraph) await new Promise<void>((resolve) => setImmediate(resolve));
  }

  has(id: string): boolean {
    return this.exact.has(id);
  }

  add(id: string, vector: Float32Array): void {
    if (this.exact.has(id)) return;
    this.exact.add(id, vector);
    if (this.graph && this.hasGraph) this.addToGraph(this.graph, id, vector);
    else if (this.graph) this.backlog.push(id);
  }

  remove(id: string): boolean {
    if (!this.exact.remove(id)) return false;
    const label = this.labels.get(id);
    if (this.graph && label !== undefined) {
      this.graph.markDelete(label);
      this.labels.delete(id);
      this.idsByLabel.delete(label);
      this.deletedInGraph++;
    }
    return true;
  }

  search(query: Float32Array, k: number, allowed?: ReadonlySet<string>): VectorHit[] {
    if (query.length !== this.dimension) throw new RangeError(`query of ${query.length} dimensions in an index of ${this.dimension}`);
    if (!this.graph && this.size >= Math.max(1, this.minGraphSize)) this.startGraph();
    const graph = this.graph;
    if (!graph || !this.hasGraph || k <= 0) return this.exact.search(query, k, allowed);
    if (allowed && allowed.size <= this.exactRestrictionSize) return this.exact.search(query, k, allowed);
    const wanted = Math.min(k, allowed ? allowed.size : this.size);
    if (wanted === 0) return [];
    graph.setEf(Math.max(this.efSearch, wanted));
    const filter = allowed ? (label: number) => allowed.has(this.idsByLabel.get(label) ?? '') : undefined;
    const found = graph.searchKnn(Array.from(query), wanted, filter);
    const hits: VectorHit[] = [];
    for (const label of found.neighbors) {
      const id = this.idsByLabel.get(label);
      const similarity = id === undefined ? undefined : this.exact.similarity(id, query);
      if (id !== undefined && similarity !== undefined) hits.push({ id, similarity });
    }
    // A graph walk through a filter can strand itself in a region with too few allowed nodes.
    if (allowed && hits.length < Math.min(wanted, this.countAllowed(allowed))) return this.exact.search(query, k, allowed);
    return hits.sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  private countAllowed(allowed: ReadonlySet<string>): number {
    let count = 0;
    for (const id of allowed) if (this.exact.has(id)) count++;
    return count;
  }

  /** Creates the empty graph and queues every stored vector for it. */
  private startGraph(): void {
    if (this.graph) return;
    const graph = new (loadHnswlib().HierarchicalNSW)('ip', this.dimension);
    graph.initIndex({
      maxElements: Math.max(1024, this.exact.size * 2),
      m: this.m,
      efConstruction: this.efConstruction,
      randomSeed: this.seed,
      allowReplaceDeleted: true,
    });
    this.graph = graph;
    this.backlog = [...this.exact.ids()];
    this.backlogNext = 0;
    this.scheduleCatchUp();
  }

  /** Moves queued vectors into the graph for about `budgetMs` milliseconds. */
  private catchUp(budgetMs: number): void {
    const graph = this.graph;
    if (!graph) return;
    const started = performance.now();
    while (this.backlogNext < this.backlog.length) {
      const id = this.backlog[this.backlogNext++]!;
      const vector = this.exact.vectorOf(id);
      // Removed while queued, or queued twice: nothing to do.
      if (vector && !this.labels.has(id)) this.addToGraph(graph, id, vector);
      if ((this.backlogNext & 31) === 0 && performance.now() - started > budgetMs) break;
    }
    if (this.backlogNext >= this.backlog.length) {
      this.backlog = [];
      this.backlogNext = 0;
    }
  }

  private scheduleCatchUp(): void {
    if (this.catchUpScheduled || this.hasGraph) return;
    this.catchUpScheduled = true;
    setImmediate(() => {
      this.catchUpScheduled = false;
      this.catchUp(15);
      this.scheduleCatchUp();
    }).unref();
  }

  private addToGraph(graph: HierarchicalNSW, id: string, vector: Float32Array): void {
    if (this.deletedInGraph === 0 && graph.getCurrentCount() >= graph.getMaxElements()) graph.resizeIndex(graph.getMaxElements() * 2);
    // Labels are never reused: hnswlib forgets the label of a deleted node it overwrites, so a
    // reused label could be forgotten while alive.
    const label = this.nextLabel++;
    graph.addPoint(Array.from(vector), label, this.deletedInGraph > 0);
    if (this.deletedInGraph > 0) this.deletedInGraph--;
    this.labels.set(id, label);
    this.idsByLabel.set(label, id);
  }
}

/** Makes {@link HnswVectorIndex}es; `name` is `hnsw`, or `auto` when small indexes stay exact. */
export class HnswVectorIndexFactory implements VectorIndexFactory {
  readonly name: string;

  constructor(private readonly options: HnswOptions = {}) {
    this.name = (options.minGraphSize ?? 0) > 0 ? 'auto' : 'hnsw';
  }

  create(dimension: number): HnswVectorIndex {
    return new HnswVectorIndex(dimension, this.options);
  }
}
