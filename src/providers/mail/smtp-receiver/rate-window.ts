/** Counts events in a sliding window: at most `limit` within any `windowMs`. */
export class RateWindow {
  private times: number[] = [];

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Records an event at `now` (a monotonic time in ms) when the window has room; false when it has none. */
  take(now: number): boolean {
    this.times = this.times.filter((at) => now - at < this.windowMs);
    if (this.times.length >= this.limit) return false;
    this.times.push(now);
    return true;
  }
}
