import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, test } from 'vitest';
// The vitest example registers its tests here, as they are.
import '../../examples/testing/wallet.vitest.js';
import { exitOf } from '../support/child-exit.js';

// The jest-style example uses jest's globals; vitest's have the same API.
Object.assign(globalThis, { describe, test, expect, beforeEach, afterEach });
await import('../../examples/testing/wallet.jest.js');

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('the node:test example', () => {
  // A child node loading the sources through tsx: slow on a loaded machine, so a generous limit (not an assertion).
  it('passes under node --test with tsx as the loader', { timeout: 180_000 }, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', 'examples/testing/wallet.node-test.ts'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await exitOf(child);
    expect(output).toMatch(/^# pass 3$/m);
    expect(output).toMatch(/^# fail 0$/m);
    expect(code).toBe(0);
  });
});
