import { describe, expect, it } from 'vitest';
import { progressDisplay } from '../../src/scenario/progress.js';

function steps(total: number) {
  return Array.from({ length: total }, (_, i) => ({ step: i + 1, steps: total, now: `2026-01-01T00:${String(i).padStart(2, '0')}:00.000Z`, agentSteps: (i + 1) * 3, calls: i * 4, events: i }));
}

describe('progressDisplay', () => {
  it('writes a plain line every tenth of the run when the output is not a terminal', () => {
    const written: string[] = [];
    const display = progressDisplay({ isTTY: false, write: (text) => written.push(text) });
    for (const progress of steps(20)) display.onStep(progress);
    display.done();
    expect(written).toHaveLength(10);
    expect(written[0]).toBe('step 2/20 (10%) at 2026-01-01T00:01:00.000Z: 6 agent steps, 4 calls, 1 events\n');
    expect(written.at(-1)).toMatch(/^step 20\/20 \(100%\)/);
    expect(written.every((line) => !line.includes('\r'))).toBe(true);
  });

  it('redraws one bar in place on a terminal, always drawing the last step, and ends the line', () => {
    const written: string[] = [];
    const display = progressDisplay({ isTTY: true, columns: 100, write: (text) => written.push(text) });
    for (const progress of steps(5)) display.onStep(progress);
    display.done();
    // The first step draws; the rest come within the redraw interval, except the last one.
    expect(written.length).toBeGreaterThanOrEqual(3);
    expect(written[0]).toMatch(/^\r\[#*\.*\] +20% step 1\/5 2026-01-01 00:00 \d+ agent-steps\/s\u001b\[K$/);
    expect(written.at(-2)).toMatch(/^\r\[#+\] 100% step 5\/5 /);
    expect(written.at(-1)).toBe('\n');
  });
});
