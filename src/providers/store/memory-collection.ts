import { IdIndex } from './id-index.js';

/** One stored record of the memory store with its place. */
export interface Row {
  id: string;
  partition: string;
  position: number;
  record: unknown;
  live: boolean;
  /**
   * The answer of a read of this row, kept until the record changes: records such as agents are
   * read on every request and rarely written, and a settled promise is an allocation per read.
   */
  answer: Promise<unknown> | undefined;
}

/** Rows of one partition in ascending position; removed rows stay as tombstones until compacted. */
export interface Partition {
  /** The partition's name, the one string its rows refer to (not a copy per row). */
  readonly name: string;
  rows: Row[];
  dead: number;
  /** Rows of the partition that are not removed. */
  live: number;
}

/** Index of the first row whose position is >= `position` (rows sorted ascending). */
export function lowerBound(rows: Row[], position: number): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (rows[mid]!.position < position) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * One collection of the memory store: its partitions and its index by id. While every row's id is
 * the decimal text of its position and all rows share one partition (the event log: `seq` is the
 * position), that partition's rows, sorted by position, are the index and no `Map` is kept: an
 * insertion into a map of 100,000s of rows costs a large share of a whole book transfer. The
 * first row that does not fit turns the index into an {@link IdIndex}, in position order.
 */
export class Collection {
  constructor(readonly name: string) {}

  readonly partitions = new Map<string, Partition>();
  nextPosition = 1;
  /** Rows by id; null while the index is positional. */
  private byId: IdIndex<Row> | null = null;
  /** The one partition of a positional index (null before its first row). */
  private sole: Partition | null = null;

  /** The partition `name`, created empty when missing. */
  partition(name: string): Partition {
    let partition = this.partitions.get(name);
    if (!partition) this.partitions.set(name, (partition = { name, rows: [], dead: 0, live: 0 }));
    return partition;
  }

  /** How many rows are not removed. */
  get size(): number {
    return this.byId ? this.byId.size : (this.sole?.live ?? 0);
  }

  /** The live row `id`, if any. */
  get(id: string): Row | undefined {
    if (this.byId) return this.byId.get(id);
    const rows = this.sole?.rows;
    const position = positionNamedBy(id);
    if (!rows || position === undefined) return undefined;
    for (let index = lowerBound(rows, position); index < rows.length && rows[index]!.position === position; index++) {
      if (rows[index]!.live) return rows[index];
    }
    return undefined;
  }

  /**
   * Indexes a new row (before it is pushed onto `partition`, above every position there); false,
   * with nothing changed, when its id is taken. `numbered`: its id is known to be the decimal text
   * of its position (the store numbered it), so it is not converted again to be compared.
   */
  add(row: Row, partition: Partition, numbered = false): boolean {
    if (!this.byId) {
      const last = partition.rows[partition.rows.length - 1];
      if ((this.sole === null || this.sole === partition) && (last === undefined || last.position < row.position) && (numbered || row.id === String(row.position))) {
        this.sole = partition;
        return true;
      }
      const kept = this.values();
      this.byId = new IdIndex();
      for (const other of kept) this.byId.add(other);
    }
    return this.byId.add(row);
  }

  /** Takes a row out of the index (it is marked dead by the caller). */
  delete(row: Row): void {
    this.byId?.delete(row);
  }

  /** Puts a removed row back into the index (it is marked live by the caller). */
  restore(row: Row): void {
    this.byId?.add(row);
  }

  /** The live rows, in position order unless an import or an undone removal brought them in another. */
  values(): Iterable<Row> {
    if (this.byId) return this.byId.values();
    return this.sole ? this.sole.rows.filter((row) => row.live) : [];
  }
}

/** The position an id names in a positional index: its canonical decimal text, else undefined. */
function positionNamedBy(id: string): number | undefined {
  const position = Number(id);
  return Number.isSafeInteger(position) && position > 0 && String(position) === id ? position : undefined;
}
