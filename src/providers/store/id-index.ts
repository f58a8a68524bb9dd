/** What the index holds: anything with a string id (the memory store's rows). */
export interface HasId {
  readonly id: string;
}

/** Rows a collection holds before its index turns from a `Map` into the table. */
const TABLE_FROM = 2048;
/** Slots one lookup may probe before the index gives way to a `Map` for good (ids made to collide). */
const MAX_PROBES = 48;
/** A slot that never held a row, and one whose row was removed. */
const EMPTY = 0;
const REMOVED = -1;

/**
 * The hash of an id the table is keyed by: its length, its first 8 and last 16 UTF-16 units (every
 * unit of a shorter id), mixed so that the low bits spread. Ids of the store are mostly a prefix
 * and random text (`agt_…:txn_…`), so the ends tell them apart at a fraction of hashing all of a
 * long id; ids made to share their ends only make probes long, and a long probe turns the index
 * into a `Map`, whose hash is seeded.
 */
export function hashOfId(id: string): number {
  const length = id.length;
  let hash = Math.imul(length ^ 0x811c9dc5, 0x01000193);
  if (length <= 24) {
    for (let i = 0; i < length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  } else {
    for (let i = 0; i < 8; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
    for (let i = length - 16; i < length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  return hash ^ (hash >>> 16);
}

/**
 * A collection's rows by id, with a `Map`'s meaning (insertion order; a row taken out and put back
 * goes last). Small, it is a `Map`. From {@link TABLE_FROM} rows on it is an open-addressing table
 * of id hashes and row numbers in typed arrays over a dense array of the rows: a `Map` of 100,000s
 * of string keys costs a send more than anything else it does (a probe of cache misses through
 * the keys' strings, and the table's pointers to new rows, which every young collection scans),
 * where the table probes integers and holds no pointer but the row array's, which only grows
 * at its end.
 */
export class IdIndex<R extends HasId> {
  private map: Map<string, R> | null = new Map();
  /** Per slot: the id hash, and 1 + the row's number in {@link rows} ({@link EMPTY}, {@link REMOVED}). */
  private hashes = new Int32Array(0);
  private slots = new Int32Array(0);
  /** Rows in insertion order; undefined where one was taken out (until the next rebuild). */
  private rows: Array<R | undefined> = [];
  private live = 0;
  /** Slots not {@link EMPTY}: live and removed. */
  private filled = 0;
  /** Once a probe ran too long, the index stays a `Map`. */
  private mapForGood = false;

  constructor(private readonly tableFrom: number = TABLE_FROM) {}

  /** How many rows it holds. */
  get size(): number {
    return this.map ? this.map.size : this.live;
  }

  /** The row `id`, if any. */
  get(id: string): R | undefined {
    if (this.map) return this.map.get(id);
    const hash = hashOfId(id);
    const mask = this.slots.length - 1;
    for (let at = hash & mask, probes = 0; ; at = (at + 1) & mask) {
      const slot = this.slots[at]!;
      if (slot === EMPTY) return undefined;
      if (slot > 0 && this.hashes[at] === hash && this.rows[slot - 1]!.id === id) return this.rows[slot - 1];
      if (++probes === MAX_PROBES) return this.toMap().get(id);
    }
  }

  /** Adds `row`; false, with nothing changed, when its id is taken. */
  add(row: R): boolean {
    const map = this.map;
    if (map) {
      if (map.has(row.id)) return false;
      map.set(row.id, row);
      if (map.size >= this.tableFrom && !this.mapForGood) this.toTable();
      return true;
    }
    const id = row.id;
    const hash = hashOfId(id);
    const mask = this.slots.length - 1;
    let free = -1;
    for (let at = hash & mask, probes = 0; ; at = (at + 1) & mask) {
      const slot = this.slots[at]!;
      if (slot === EMPTY) {
        if (free < 0) {
          free = at;
          this.filled++;
        }
        break;
      }
      if (slot === REMOVED) {
        if (free < 0) free = at;
      } else if (this.hashes[at] === hash && this.rows[slot - 1]!.id === id) return false;
      if (++probes === MAX_PROBES) {
        this.toMap();
        return this.add(row);
      }
    }
    this.rows.push(row);
    this.slots[free] = this.rows.length;
    this.hashes[free] = hash;
    this.live++;
    // A removed slot taken again fills no new slot, but the row array still grows by one: rows
    // taken out and put back would grow it for ever, so holes outnumbering the rows rebuild too.
    if (this.filled * 2 > this.slots.length || this.rows.length > 2 * this.live + 16) this.rebuild();
    return true;
  }

  /** Takes `row` out (it is held). */
  delete(row: R): void {
    if (this.map) {
      this.map.delete(row.id);
      return;
    }
    const hash = hashOfId(row.id);
    const mask = this.slots.length - 1;
    for (let at = hash & mask; ; at = (at + 1) & mask) {
      const slot = this.slots[at]!;
      if (slot === EMPTY) return;
      if (slot > 0 && this.rows[slot - 1] === row) {
        this.slots[at] = REMOVED;
        this.rows[slot - 1] = undefined;
        this.live--;
        return;
      }
    }
  }

  /** The rows in insertion order. */
  values(): Iterable<R> {
    if (this.map) return this.map.values();
    return this.rows.filter((row): row is R => row !== undefined);
  }

  /** Turns a map of {@link tableFrom} rows into the table. */
  private toTable(): void {
    const rows = [...this.map!.values()];
    this.map = null;
    this.build(rows);
  }

  /** Turns the table into a map for good (a probe ran too long: ids that collide). */
  private toMap(): Map<string, R> {
    const map = new Map<string, R>();
    for (const row of this.rows) if (row !== undefined) map.set(row.id, row);
    this.map = map;
    this.mapForGood = true;
    this.hashes = new Int32Array(0);
    this.slots = new Int32Array(0);
    this.rows = [];
    this.live = 0;
    this.filled = 0;
    return map;
  }

  /** Builds the table anew from the live rows, at most a third full (it is rebuilt at half). */
  private rebuild(): void {
    this.build(this.rows.filter((row): row is R => row !== undefined));
  }

  private build(rows: R[]): void {
    let capacity = 16;
    while (capacity < rows.length * 3) capacity *= 2;
    const hashes = new Int32Array(capacity);
    const slots = new Int32Array(capacity);
    const mask = capacity - 1;
    for (let i = 0; i < rows.length; i++) {
      const hash = hashOfId(rows[i]!.id);
      let at = hash & mask;
      while (slots[at] !== EMPTY) at = (at + 1) & mask;
      slots[at] = i + 1;
      hashes[at] = hash;
    }
    this.hashes = hashes;
    this.slots = slots;
    this.rows = rows;
    this.live = rows.length;
    this.filled = rows.length;
  }
}
