import type { StepProgress } from './run-scenario.js';

/** Where progress goes: a terminal gets a bar redrawn in place, anything else plain lines. */
export interface ProgressOutput {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

/** Redraws a terminal bar at most this often (ms of wall time). */
const REDRAW_MS = 100;
/** Plain lines: one per this fraction of the steps. */
const LINE_EVERY = 0.1;

/**
 * A progress display for `runScenario`'s `onStep`: on a terminal a bar redrawn in place (with
 * agent-steps per second), otherwise a plain line every tenth of the run. Wall time is only shown,
 * never part of the run.
 */
export function progressDisplay(output: ProgressOutput, started: number = performance.now()): { onStep: (progress: StepProgress) => void; done: () => void } {
  let lastDraw = -Infinity;
  let nextLine = LINE_EVERY;
  let drawn = false;
  const rate = (progress: StepProgress) => {
    const seconds = (performance.now() - started) / 1000;
    return seconds > 0 ? Math.round(progress.agentSteps / seconds) : 0;
  };
  return {
    onStep(progress) {
      const fraction = progress.step / progress.steps;
      if (output.isTTY) {
        const now = performance.now();
        if (now - lastDraw < REDRAW_MS && progress.step < progress.steps) return;
        lastDraw = now;
        const tail = ` ${String(Math.floor(fraction * 100)).padStart(3)}% step ${progress.step}/${progress.steps} ${progress.now.slice(0, 16).replace('T', ' ')} ${rate(progress)} agent-steps/s`;
        const width = Math.max(10, Math.min(40, (output.columns ?? 80) - tail.length - 3));
        const filled = Math.round(fraction * width);
        output.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]${tail}\u001b[K`);
        drawn = true;
        return;
      }
      if (fraction + 1e-9 >= nextLine || progress.step === progress.steps) {
        while (nextLine <= fraction + 1e-9) nextLine += LINE_EVERY;
        output.write(`step ${progress.step}/${progress.steps} (${Math.floor(fraction * 100)}%) at ${progress.now}: ${progress.agentSteps} agent steps, ${progress.calls} calls, ${progress.events} events\n`);
      }
    },
    done() {
      if (drawn) output.write('\n');
    },
  };
}
