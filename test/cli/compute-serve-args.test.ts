import { describe, expect, it } from 'vitest';
import { parseServeArgs } from '../../src/cli/serve-command.js';

describe('serve --sandbox', () => {
  it('defaults to the WebAssembly sandbox and takes bubblewrap', () => {
    expect(parseServeArgs([]).runtime.compute?.sandbox).toBe('wasm');
    expect(parseServeArgs(['--sandbox', 'bubblewrap']).runtime.compute?.sandbox).toBe('bubblewrap');
  });

  it('refuses an unknown sandbox with a usage message', () => {
    expect(() => parseServeArgs(['--sandbox', 'docker'])).toThrow(/--sandbox must be wasm or bubblewrap/);
  });
});
