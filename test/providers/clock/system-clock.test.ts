import { describe, expect, it } from 'vitest';
import { SystemClock } from '../../../src/providers/clock/system-clock.js';

describe('SystemClock', () => {
  it('reports a timer whose work rejects instead of leaving an unhandled rejection', async () => {
    const reported = new Promise<unknown>((resolve) => {
      const clock = new SystemClock(resolve);
      clock.setTimer(clock.now(), async () => {
        throw new Error('disk full');
      });
    });
    expect(await reported).toMatchObject({ message: 'disk full' });
  });

  it('reports a timer whose work throws synchronously', async () => {
    const reported = new Promise<unknown>((resolve) => {
      const clock = new SystemClock(resolve);
      clock.setTimer(clock.now(), () => {
        throw new Error('bug');
      });
    });
    expect(await reported).toMatchObject({ message: 'bug' });
  });
});
