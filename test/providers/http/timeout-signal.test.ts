import { describe, expect, it } from 'vitest';
import { timeoutSignal } from '../../../src/providers/http/timeout-signal.js';
import { orIfLate, whileCollecting } from '../../support/gc.js';

/** Whether `signal` aborts before a much later timer fires. */
const abortsFirst = (signal: AbortSignal) => orIfLate(new Promise<boolean>((resolve) => signal.addEventListener('abort', () => resolve(true), { once: true })), false);

describe('timeoutSignal', () => {
  it('aborts with a TimeoutError', async () => {
    const { signal } = timeoutSignal(10);
    expect(await abortsFirst(signal)).toBe(true);
    expect((signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('fires inside AbortSignal.any while garbage collections run (Node loses AbortSignal.timeout there)', async () => {
    const caller = new AbortController();
    // Combined as the dispatcher and the HTTP client combine them; only the combined signal is kept.
    const combined = Array.from({ length: 100 }, (_, i) => AbortSignal.any([caller.signal, timeoutSignal(20 + (i % 30)).signal]));
    const outcomes = await whileCollecting(() => Promise.all(combined.map(abortsFirst)));
    expect(outcomes.filter((aborted) => !aborted)).toHaveLength(0);
    expect(caller.signal.aborted).toBe(false);
  });

  it('never aborts once cleared', async () => {
    const cleared = timeoutSignal(10);
    cleared.clear();
    const witness = timeoutSignal(30);
    await abortsFirst(witness.signal);
    expect(cleared.signal.aborted).toBe(false);
  });
});
