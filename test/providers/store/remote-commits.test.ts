// Word of commits between processes: a batched announcement the database refused is not lost.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RemoteCommits } from '../../../src/providers/store/postgres/remote-commits.js';

describe('RemoteCommits', () => {
  afterEach(() => void vi.useRealTimers());

  it('sends a batched announcement again when the database refused it, and stops once closed', async () => {
    vi.useFakeTimers();
    const sent: string[][] = [];
    let refuse = true;
    let inFlight: ((error: Error) => void) | undefined;
    const remote = new RemoteCommits(
      'p1',
      async (collections) => {
        if (inFlight) return new Promise<void>((_, reject) => (inFlight = reject));
        if (refuse) throw new Error('connection lost');
        sent.push([...collections].sort());
      },
      (callback) => callback(),
    );
    remote.follow(() => {}, { collections: ['events', 'memories'], latencyMs: 200 });
    remote.committed(new Set(['events']));
    await vi.advanceTimersByTimeAsync(100);
    expect(sent).toEqual([]);
    // Nothing else is committed: only the try again can tell the other processes.
    refuse = false;
    await vi.advanceTimersByTimeAsync(2000);
    expect(sent).toEqual([['events']]);

    // Refused after the store closed: not tried again.
    inFlight = () => {};
    remote.committed(new Set(['events']));
    await vi.advanceTimersByTimeAsync(100);
    remote.close();
    inFlight(new Error('the PostgreSQL store is closed'));
    inFlight = undefined;
    await vi.advanceTimersByTimeAsync(5000);
    expect(sent).toEqual([['events']]);
  });
});
