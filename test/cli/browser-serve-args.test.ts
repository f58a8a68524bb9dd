/** `serve --browser` and `--chromium`: the browser-session provider choice on the command line. */
import { describe, expect, it } from 'vitest';
import { parseServeArgs } from '../../src/cli/serve-command.js';

describe('serve --browser', () => {
  it('defaults to auto', () => {
    expect(parseServeArgs([]).runtime.browser).toEqual({ provider: 'auto' });
  });

  it('takes chromium or simulated, and a Chromium path', () => {
    expect(parseServeArgs(['--browser', 'simulated']).runtime.browser).toEqual({ provider: 'simulated' });
    expect(parseServeArgs(['--browser', 'chromium', '--chromium', '/opt/chromium']).runtime.browser).toEqual({ provider: 'chromium', chromiumPath: '/opt/chromium' });
  });

  it('refuses any other kind with a message naming the choices', () => {
    expect(() => parseServeArgs(['--browser', 'firefox'])).toThrow(/--browser must be auto, chromium or simulated, got "firefox"/);
  });
});
