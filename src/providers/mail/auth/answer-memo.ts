import { NO_RECORD, type DnsResolver } from './dns-resolver.js';

/** A question a computation asked, and the cached answer it was given (the resolver's token). */
interface Read {
  name: string;
  type: string;
  answer: object;
}

/** Most results kept; the oldest goes first. */
const MAX_ENTRIES = 10_000;

/**
 * Results computed from DNS answers (an SPF or a DMARC evaluation), kept by the key of their other
 * inputs and given again only while every answer the computation read is still the one the
 * resolver gives from its cache ({@link DnsResolver.reused}): computing again would then read the
 * same answers and come to the same result, so reuse changes no verdict. A computation that read a
 * failure (a timeout, a refused query), an answer the cache does not keep, or that left a lookup
 * unfinished is not kept. Without a cache (`reused` missing, or `dnsCacheSeconds` 0) nothing is.
 */
export class AnswerMemo<T> {
  private readonly entries = new Map<string, { value: T; reads: Read[] }>();

  constructor(private readonly resolver: DnsResolver) {}

  /**
   * The result for `key`: the kept one while it stands, else `compute(ask)` (kept when it may be).
   * `ask` is the lookup the computation uses (the message's own, with its deadline).
   */
  get(key: string, ask: (name: string, type: string) => Promise<unknown>, compute: (ask: (name: string, type: string) => Promise<unknown>) => Promise<T>): Promise<T> {
    const kept = this.kept(key);
    return kept === undefined ? this.computed(key, ask, compute) : Promise.resolve(kept);
  }

  /** The kept result for `key` while it stands, else undefined (found without a promise). */
  kept(key: string): T | undefined {
    const kept = this.entries.get(key);
    if (kept === undefined) return undefined;
    const reused = this.resolver.reused!;
    for (const read of kept.reads) {
      if (reused(read.name, read.type) !== read.answer) {
        this.entries.delete(key);
        return undefined;
      }
    }
    return kept.value;
  }

  private async computed(key: string, ask: (name: string, type: string) => Promise<unknown>, compute: (ask: (name: string, type: string) => Promise<unknown>) => Promise<T>): Promise<T> {
    const reused = this.resolver.reused;
    if (!reused) return compute(ask);
    const reads: Read[] = [];
    let open = 0;
    let reusable = true;
    const recording = (name: string, type: string) => {
      const answer = ask(name, type);
      open += 1;
      // Registered before the computation awaits the answer, so this runs first: the token is the
      // cache entry that gave this answer.
      const record = () => {
        open -= 1;
        const token = reused(name, type);
        if (token) reads.push({ name, type, answer: token });
        else reusable = false;
      };
      answer.then(record, (error: NodeJS.ErrnoException | undefined) => {
        if (NO_RECORD.has(error?.code ?? '')) record();
        else reusable = false;
      });
      return answer;
    };
    const value = await compute(recording);
    if (reusable && open === 0) {
      this.entries.set(key, { value, reads });
      if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    }
    return value;
  }
}
