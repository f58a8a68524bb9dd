import { describe, expect, it } from 'vitest';
import { parseMcpArgs } from '../../src/cli/mcp-command.js';

describe('agent-services mcp arguments', () => {
  it('takes a key and a base URL, or an in-process world', () => {
    expect(parseMcpArgs(['--api-key', 'sk_1', '--base-url', 'http://127.0.0.1:8787'])).toMatchObject({ apiKey: 'sk_1', baseUrl: 'http://127.0.0.1:8787' });
    expect(parseMcpArgs(['--agent', 'scout', '--balance', 'usd=10', '--balance', 'usdc=2.5', '--seed', '7'])).toEqual({
      apiKey: undefined,
      baseUrl: undefined,
      data: undefined,
      seed: 7,
      agent: 'scout',
      balances: { usd: '10', usdc: '2.5' },
    });
    expect(parseMcpArgs([])).toMatchObject({ agent: 'demo', seed: 0, balances: {} });
  });

  it('refuses combinations that cannot mean anything, saying why', () => {
    expect(() => parseMcpArgs(['--base-url', 'http://x'])).toThrow('--base-url needs --api-key');
    expect(() => parseMcpArgs(['--api-key', 'k', '--base-url', 'ftp://x'])).toThrow('--base-url must be an http(s) URL');
    expect(() => parseMcpArgs(['--api-key', 'k', '--base-url', 'http://x', '--data', 'f'])).toThrow('--data is for an in-process world');
    expect(() => parseMcpArgs(['--api-key', 'k', '--agent', 'a'])).toThrow('--agent and --balance create a new agent');
    expect(() => parseMcpArgs(['--balance', 'usd'])).toThrow('--balance must be ASSET=AMOUNT');
    expect(() => parseMcpArgs(['--port', '1'])).toThrow();
  });
});
