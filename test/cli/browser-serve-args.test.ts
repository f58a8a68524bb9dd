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

describe('serve --advertise-url', () => {
  const database = ['--database', 'postgres://u:p@127.0.0.1:5432/world'];

  it('is absent by default (the listen URL is advertised)', () => {
    expect(parseServeArgs(database, {}).runtime.advertiseUrl).toBeUndefined();
  });

  it('takes an http(s) URL of this process, without a trailing slash', () => {
    expect(parseServeArgs([...database, '--advertise-url', 'http://10.0.0.7:8787/'], {}).runtime.advertiseUrl).toBe('http://10.0.0.7:8787');
    expect(parseServeArgs([...database, '--advertise-url', 'https://node-a.internal'], {}).runtime.advertiseUrl).toBe('https://node-a.internal');
  });

  it('refuses anything else, and goes only with --database', () => {
    for (const bad of ['node-a:8787', 'ws://node-a:8787', 'http://node-a:8787/base', 'http://']) {
      expect(() => parseServeArgs([...database, '--advertise-url', bad], {})).toThrow(/--advertise-url must be an http:\/\/ or https:\/\/ URL/);
    }
    expect(() => parseServeArgs(['--advertise-url', 'http://node-a:8787'], {})).toThrow(/--advertise-url goes with --database/);
  });
});
