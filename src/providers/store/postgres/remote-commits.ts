import type { RemoteFollow } from '../../../core/ports/store.js';

/** How long a batched announcement that could not be sent waits before it is tried again (ms). */
const RETRY_MS = 1000;

/** How a listener follows other processes' commits (see {@link RemoteFollow}). */
interface Follower {
  listener: (collections: ReadonlySet<string>) => void;
  /** Undefined: every collection. */
  collections: ReadonlySet<string> | undefined;
}

/**
 * Word of commits between the processes of one world, over LISTEN/NOTIFY. A NOTIFY costs the
 * committing transaction, every listening connection and every other process a wake-up, so a
 * commit announces itself only as its followers need: in its own COMMIT when it changed a
 * collection followed at once (jobs, memories), in a NOTIFY sent within the latency allowed when
 * it changed only collections followed with one (the event log, a few times a second), and not at
 * all when nobody follows what it changed (a book transfer's balances and history).
 */
export class RemoteCommits {
  private readonly followers: Follower[] = [];
  /** Collections followed with each commit; undefined once some listener follows every collection. */
  private urgent: Set<string> | undefined = new Set();
  /** Collections followed with a latency, and the smallest latency allowed for each. */
  private readonly lazy = new Map<string, number>();
  /** Changed collections waiting for the next batched announcement, and its timer. */
  private readonly waiting = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly processId: string,
    /** Sends one NOTIFY naming `collections` (outside any transaction). */
    private readonly announce: (collections: ReadonlySet<string>) => Promise<void>,
    private readonly guard: (callback: () => void) => void,
  ) {}

  follow(listener: (collections: ReadonlySet<string>) => void, follow?: RemoteFollow): void {
    this.followers.push({ listener, collections: follow ? new Set(follow.collections) : undefined });
    if (!follow) {
      this.urgent = undefined;
      return;
    }
    for (const collection of follow.collections) {
      if (!follow.latencyMs) this.urgent?.add(collection);
      else this.lazy.set(collection, Math.min(follow.latencyMs, this.lazy.get(collection) ?? Number.POSITIVE_INFINITY));
    }
  }

  /** The payload of a NOTIFY for a commit that changed `changed` in its own COMMIT, if it must announce itself there. */
  withCommit(changed: ReadonlySet<string>): string | undefined {
    if (changed.size === 0) return undefined;
    const urgent = this.urgent;
    if (urgent && ![...changed].some((collection) => urgent.has(collection))) return undefined;
    return this.payloadOf(changed);
  }

  /** After a commit that did not announce itself in its COMMIT: the collections followed with a latency wait for the next batched NOTIFY. */
  committed(changed: ReadonlySet<string>): void {
    let latency = Number.POSITIVE_INFINITY;
    for (const collection of changed) {
      const allowed = this.lazy.get(collection);
      if (allowed === undefined) continue;
      this.waiting.add(collection);
      latency = Math.min(latency, allowed);
    }
    // Half the latency allowed: the NOTIFY itself and the follower's read take the rest.
    if (latency !== Number.POSITIVE_INFINITY) this.flushIn(Math.max(1, latency / 2));
  }

  private flushIn(ms: number): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => this.flush(), ms);
    this.timer.unref();
  }

  private flush(): void {
    this.timer = undefined;
    const collections = new Set(this.waiting);
    this.waiting.clear();
    if (collections.size === 0) return;
    void this.announce(collections).catch(() => {
      // The database is away. Waiting for the next commit to announce these could leave the
      // followers unaware of them for good (a quiet world): they go with the next try instead.
      for (const collection of collections) this.waiting.add(collection);
      this.flushIn(RETRY_MS);
    });
  }

  /** A NOTIFY payload naming `collections` (under 8000 bytes: "everything" when they are that many). */
  payloadOf(collections: ReadonlySet<string>): string {
    const text = `${this.processId}|${[...collections].join(',')}`;
    return text.length < 7000 ? text : `${this.processId}|*`;
  }

  /** A NOTIFY arrived: tells the listeners what another process changed. */
  received(payload: string): void {
    const bar = payload.indexOf('|');
    if (bar < 0 || payload.slice(0, bar) === this.processId) return;
    const collections = new Set(payload.slice(bar + 1).split(','));
    const everything = collections.has('*');
    for (const { listener, collections: followed } of this.followers) {
      if (everything || !followed || [...collections].some((collection) => followed.has(collection))) this.guard(() => listener(collections));
    }
  }

  /** Stops the batched announcement (the store is closing). */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
