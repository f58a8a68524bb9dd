// TransactionTurns without store checks (how a server runs): no AsyncLocalStorage, so a caller
// inside the running transaction is known only in its first synchronous step; a deadlock
// elsewhere (a read through the view, or a transaction, started inside) is broken by the watch.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TransactionTurns } from '../../../src/providers/store/transaction-turns.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('TransactionTurns without store checks', () => {
  it('runs transactions one at a time in call order and lets readers wait for the running one', async () => {
    const turns = new TransactionTurns({ checks: false });
    const log: string[] = [];
    let value = 0;
    const first = turns.run(async () => {
      log.push('first starts');
      await Promise.resolve();
      value = 1;
      log.push('first ends');
    });
    const read = turns.read(() => value);
    const second = turns.run(async () => {
      log.push(`second sees ${value}`);
    });
    await Promise.all([first, second]);
    expect(await read).toBe(1);
    expect(log).toEqual(['first starts', 'first ends', 'second sees 1']);
  });

  it('refuses a transaction or a view read started in the first synchronous step of a transaction', async () => {
    const turns = new TransactionTurns({ checks: false });
    await expect(turns.run(() => turns.run(async () => 1))).rejects.toThrow(/do not nest/);
    await expect(turns.run(() => turns.read(() => 1))).rejects.toThrow(/reads through its handle/);
    // The turns moved on.
    expect(await turns.run(async () => 2)).toBe(2);
  });

  it('fails what waits on a transaction that waits for itself, so that it rolls back and the turns go on', async () => {
    vi.useFakeTimers();
    const turns = new TransactionTurns({ checks: false });
    // After an await the turns no longer know the caller: the read waits for its own transaction.
    const stuck = turns.run(async () => {
      await Promise.resolve();
      return turns.read(() => 'never');
    });
    const outside = turns.read(() => 'outside');
    const assertions = [expect(stuck).rejects.toThrow(/waited 10 s on a running store transaction/), expect(outside).rejects.toThrow(/waited 10 s/)];
    await vi.advanceTimersByTimeAsync(9_999);
    expect(turns.busy).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    await Promise.all(assertions);
    expect(turns.busy).toBe(false);
    expect(await turns.run(async () => 'next')).toBe('next');
  });

  it('leaves alone callers of a stream of transactions that each end', async () => {
    vi.useFakeTimers();
    const turns = new TransactionTurns({ checks: false });
    /** Runs a transaction for 6 s while a read waits on it, then ends it: the read is answered. */
    const readDuringSixSeconds = async (answer: string) => {
      let gate!: () => void;
      const running = turns.run(() => new Promise<void>((resolve) => (gate = resolve)));
      const read = turns.read(() => answer);
      await vi.advanceTimersByTimeAsync(6_000);
      gate();
      await running;
      expect(await read).toBe(answer);
    };
    await readDuringSixSeconds('read');
    // A new running transaction is watched afresh: 6 s more of the old watch fails nothing.
    await readDuringSixSeconds('read2');
  });
});
