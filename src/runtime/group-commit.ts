/**
 * Coalesces save requests: at most one write runs at a time, and every request made while one
 * runs is served by a single next write of the then-current state. Each request resolves once a
 * write that began after it was made is done, so a resolved request is durable.
 */
export class GroupCommit {
  private inFlight: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(private readonly write: () => Promise<void>) {}

  /** Asks for a write of the current state. */
  request(): Promise<void> {
    if (this.queued) return this.queued;
    const previous = (this.inFlight ?? Promise.resolve()).catch(() => undefined);
    const next = previous.then(() => {
      this.queued = null;
      const running = this.write().finally(() => {
        if (this.inFlight === running) this.inFlight = null;
      });
      this.inFlight = running;
      return running;
    });
    this.queued = next;
    return next;
  }

  /** Waits for every requested write. */
  async drain(): Promise<void> {
    while (this.queued || this.inFlight) await (this.queued ?? this.inFlight);
  }
}
