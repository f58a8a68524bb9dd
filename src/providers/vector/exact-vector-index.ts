import type { VectorHit, VectorIndex, VectorIndexFactory } from '../../core/ports/vector-index.js';

/** The k best (similarity, id) pairs seen so far, best first; ties go to the smaller id. */
class TopK {
  readonly similarities: number[] = [];
  readonly ids: string[] = [];

  constructor(private readonly k: number) {}

  /** The similarity a candidate must beat to enter (−∞ until k are held). */
  get floor(): number {
    return this.similarities.length < this.k ? Number.NEGATIVE_INFINITY : this.similarities[this.k - 1]!;
  }

  offer(similarity: number, id: string): void {
    if (this.k === 0) return;
    const full = this.similarities.length === this.k;
    if (full) {
      const last = this.similarities[this.k - 1]!;
      if (similarity < last || (similarity === last && id > this.ids[this.k - 1]!)) return;
    }
    let at = this.similarities.length - (full ? 1 : 0);
    while (at > 0) {
      const s = this.similarities[at - 1]!;
      if (s > similarity || (s === similarity && this.ids[at - 1]! < id)) break;
      at--;
    }
    if (full) {
      this.similarities.pop();
      this.ids.pop();
    }
    this.similarities.splice(at, 0, similarity);
    this.ids.splice(at, 0, id);
  }

  hits(): VectorHit[] {
    return this.ids.map((id, i) => ({ id, similarity: this.similarities[i]! }));
  }
}

/**
 * Exact nearest-neighbour search: every vector in one contiguous Float32Array, scanned with a dot
 * product (vectors are normalised, so that is the cosine). With a restriction only the allowed
 * vectors are scanned, so a selective filter makes search cheaper, never less exact. Removed
 * slots are reused.
 */
export class ExactVectorIndex implements VectorIndex {
  private data: Float32Array;
  private idsBySlot: Array<string | undefined> = [];
  private readonly slots = new Map<string, number>();
  private readonly free: number[] = [];

  constructor(
    readonly dimension: number,
    initialCapacity = 64,
  ) {
    if (!Number.isInteger(dimension) || dimension < 1) throw new RangeError('dimension must be a positive integer');
    this.data = new Float32Array(Math.max(1, initialCapacity) * dimension);
  }

  get size(): number {
    return this.slots.size;
  }

  has(id: string): boolean {
    return this.slots.has(id);
  }

  add(id: string, vector: Float32Array): void {
    if (vector.length !== this.dimension) throw new RangeError(`vector of ${vector.length} dimensions in an index of ${this.dimension}`);
    if (this.slots.has(id)) return;
    let slot = this.free.pop();
    if (slot === undefined) {
      slot = this.idsBySlot.length;
      this.idsBySlot.push(undefined);
      if ((slot + 1) * this.dimension > this.data.length) {
        const grown = new Float32Array(this.data.length * 2);
        grown.set(this.data);
        this.data = grown;
      }
    }
    this.data.set(vector, slot * this.dimension);
    this.idsBySlot[slot] = id;
    this.slots.set(id, slot);
  }

  remove(id: string): boolean {
    const slot = this.slots.get(id);
    if (slot === undefined) return false;
    this.slots.delete(id);
    this.idsBySlot[slot] = undefined;
    this.free.push(slot);
    return true;
  }

  /** The stored ids, in slot order. */
  *ids(): IterableIterator<string> {
    for (const id of this.idsBySlot) if (id !== undefined) yield id;
  }

  /** The stored vector of `id` (a view: do not keep it across changes), or undefined. */
  vectorOf(id: string): Float32Array | undefined {
    const slot = this.slots.get(id);
    return slot === undefined ? undefined : this.data.subarray(slot * this.dimension, (slot + 1) * this.dimension);
  }

  /** Cosine similarity of a stored vector to `query`, or undefined when `id` is not stored. */
  similarity(id: string, query: Float32Array): number | undefined {
    const slot = this.slots.get(id);
    return slot === undefined ? undefined : this.dot(slot, query);
  }

  search(query: Float32Array, k: number, allowed?: ReadonlySet<string>): VectorHit[] {
    if (query.length !== this.dimension) throw new RangeError(`query of ${query.length} dimensions in an index of ${this.dimension}`);
    const top = new TopK(Math.max(0, Math.min(k, allowed ? allowed.size : this.size)));
    if (allowed) {
      for (const id of allowed) {
        const slot = this.slots.get(id);
        if (slot !== undefined) top.offer(this.dot(slot, query), id);
      }
    } else {
      const ids = this.idsBySlot;
      for (let slot = 0; slot < ids.length; slot++) {
        const id = ids[slot];
        if (id === undefined) continue;
        const similarity = this.dot(slot, query);
        if (similarity >= top.floor) top.offer(similarity, id);
      }
    }
    return top.hits();
  }

  private dot(slot: number, query: Float32Array): number {
    const data = this.data;
    const dimension = this.dimension;
    const offset = slot * dimension;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let j = 0;
    for (; j + 4 <= dimension; j += 4) {
      s0 += data[offset + j]! * query[j]!;
      s1 += data[offset + j + 1]! * query[j + 1]!;
      s2 += data[offset + j + 2]! * query[j + 2]!;
      s3 += data[offset + j + 3]! * query[j + 3]!;
    }
    for (; j < dimension; j++) s0 += data[offset + j]! * query[j]!;
    return s0 + s1 + s2 + s3;
  }
}

/** Makes {@link ExactVectorIndex}es. */
export class ExactVectorIndexFactory implements VectorIndexFactory {
  readonly name = 'exact';

  create(dimension: number): ExactVectorIndex {
    return new ExactVectorIndex(dimension);
  }
}
