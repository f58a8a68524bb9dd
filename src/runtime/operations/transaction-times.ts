/**
 * Times store transactions for the metrics: each one from its start until its promise settles
 * (durable, or failed). Without a listener it adds no timer reads, so a runtime nobody measures
 * pays one branch per transaction.
 */
export class TransactionTimes {
  private listeners: Array<(ms: number) => void> = [];

  /** Adds a listener of transaction times in real milliseconds. */
  listen(listener: (ms: number) => void): void {
    this.listeners.push(listener);
  }

  /** Runs `transaction`, reporting its time to the listeners. */
  time<T>(transaction: () => Promise<T>): Promise<T> {
    if (this.listeners.length === 0) return transaction();
    const started = performance.now();
    const report = () => {
      const ms = performance.now() - started;
      for (const listener of this.listeners) listener(ms);
    };
    const running = transaction();
    running.then(report, report);
    return running;
  }
}
