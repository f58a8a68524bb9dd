/**
 * The sandboxes the compute behaviour tests run against, each shared by the worlds of one test
 * file (interpreters are costly to start; every run still gets a fresh one).
 */
import type { Sandbox } from '../../src/core/ports/sandbox.js';
import { BubblewrapSandbox, bubblewrapUnavailable } from '../../src/providers/sandbox/bubblewrap-sandbox.js';
import { WasmSandbox } from '../../src/providers/sandbox/wasm-sandbox.js';

/** A sandbox kind, how to build it, and why it is skipped here (if it is). */
export interface SandboxKind {
  name: string;
  create(memoryLimitBytes: number): Sandbox;
  skip: string | false;
}

/** The WebAssembly sandbox (always available). */
export const WASM: SandboxKind = {
  name: 'wasm',
  create: (memoryLimitBytes) => new WasmSandbox({ size: 2, memoryLimitBytes }),
  skip: false,
};

/** Real processes under bubblewrap, skipped with the reason where bwrap or namespaces are missing. */
export const BUBBLEWRAP: SandboxKind = {
  name: 'bubblewrap',
  create: () => new BubblewrapSandbox({ size: 2 }),
  skip: bubblewrapUnavailable() ?? false,
};
