import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { timeoutSignal } from '../../../src/providers/http/timeout-signal.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Whether `signal` aborts before a much later timer fires (timers fire in the order they are due). */
function abortsFirst(signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const later = setTimeout(() => resolve(false), 5000);
    signal.addEventListener('abort', () => (clearTimeout(later), resolve(true)), { once: true });
  });
}

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
    const collecting = setInterval(gc, 5);
    try {
      const outcomes = await Promise.all(combined.map(abortsFirst));
      expect(outcomes.filter((aborted) => !aborted)).toHaveLength(0);
    } finally {
      clearInterval(collecting);
    }
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
