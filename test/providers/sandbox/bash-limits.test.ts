/**
 * Bash runs end where real bash would (their own end) or at their timeout (124), never at an
 * interpreter's command or loop count (issue 28: 100,000 commands used to end with 126).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxRequest } from '../../../src/core/ports/sandbox.js';
import { WasmSandbox } from '../../../src/providers/sandbox/wasm-sandbox.js';

const request = (code: string, timeoutSeconds: number): SandboxRequest => ({
  runtime: 'bash',
  code,
  timeoutSeconds,
  entries: [],
  quotaBytes: 1024 ** 3,
  memoryLimitBytes: 256 * 1024 ** 2,
  outputLimitBytes: 1024 ** 2,
  nowMs: Date.UTC(2026, 0, 1),
  seed: new Uint8Array(32),
});

describe('bash runs and counting limits', () => {
  let sandbox: WasmSandbox;
  beforeAll(() => {
    sandbox = new WasmSandbox({ size: 1 });
    sandbox.warm(['bash']);
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it('a 250,000-iteration loop runs to its end and prints its count', async () => {
    const result = await sandbox.run(request('n=0; for ((i = 0; i < 250000; i++)); do n=$((n + 1)); done; echo "$n"', 120));
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('250000\n');
  }, 180_000);

  it('a while loop of 150,000 commands and awk and sed loops past 100,000 steps finish', async () => {
    const code = ['i=0; while [ "$i" -lt 150000 ]; do i=$((i + 1)); done; echo "while $i"', 'awk \'BEGIN { s = 0; for (i = 0; i < 150000; i++) s++; print "awk " s }\'', "seq 150000 | sed -n '$p'"].join('\n');
    const result = await sandbox.run(request(code, 120));
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('while 150000\nawk 150000\n150000\n');
    expect(result.exitCode).toBe(0);
  }, 180_000);

  it('an endless loop ends at its timeout with 124', async () => {
    const result = await sandbox.run(request('while true; do :; done', 2));
    expect(result.exitCode).toBe(124);
    expect(result.stderr).toMatch(/timed out after 2 s\n?$/);
    expect(result.changes).toBeNull();
  }, 60_000);
});
