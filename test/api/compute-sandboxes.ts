/**
 * The sandboxes the compute behaviour tests run against, each shared by the worlds of one test
 * file (interpreters are costly to start; every run still gets a fresh one).
 */
import { execFileSync } from 'node:child_process';
import type { Sandbox } from '../../src/core/ports/sandbox.js';
import { WasmSandbox } from '../../src/providers/sandbox/wasm-sandbox.js';

/** A sandbox kind, how to build it, and why it is skipped here (if it is). */
export interface SandboxKind {
  name: string;
  create(memoryLimitBytes: number): Sandbox;
  skip: string | false;
}

/** Whether bubblewrap can make unprivileged namespaces on this machine. */
export function bubblewrapProblem(): string | false {
  try {
    execFileSync('bwrap', ['--unshare-all', '--die-with-parent', '--ro-bind', '/', '/', '--', 'true'], { stdio: 'pipe', timeout: 20_000 });
    return false;
  } catch (error) {
    return `bubblewrap is unavailable here: ${(error as Error).message.split('\n')[0]}`;
  }
}

/** The WebAssembly sandbox (always available). */
export const WASM: SandboxKind = {
  name: 'wasm',
  create: (memoryLimitBytes) => new WasmSandbox({ size: 2, memoryLimitBytes }),
  skip: false,
};
