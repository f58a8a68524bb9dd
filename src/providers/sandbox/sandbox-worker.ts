/**
 * The worker thread that runs agent code. It is started with an empty environment, holds the
 * interpreters, and is terminated by the host on timeout or memory breach; it never touches the
 * store: it gets the agent's files in the message and answers the changes.
 */
import { parentPort } from 'node:worker_threads';
import { BashEngine } from './bash-engine.js';
import { OUT_OF_MEMORY, type Engine } from './engine.js';
import { PyodideEngine, QuotaExceeded } from './pyodide-engine.js';
import { QuickJsEngine } from './quickjs-engine.js';
import { seededRng } from './seeded-rng.js';
import { VirtualTree } from './virtual-tree.js';
import type { FromWorker, ToWorker } from './worker-protocol.js';

const port = parentPort!;
const send = (message: FromWorker) => port.postMessage(message);

// Untrusted code that reached a JavaScript object could climb to the Function constructor via
// `x.constructor.constructor` and evaluate JavaScript in this realm; every function constructor
// reachable from a prototype now refuses (the global `Function`, which host libraries use, stays).
for (const sample of [function () {}, async function () {}, function* () {}, async function* () {}]) {
  const prototype = Object.getPrototypeOf(sample) as object;
  const name = (prototype.constructor as { name: string }).name;
  const refuse = {
    [name]: function () {
      throw new EvalError('code generation from strings is disabled in the sandbox');
    },
  }[name]!;
  Object.defineProperty(prototype, 'constructor', { value: refuse, writable: false, configurable: false });
}
// Emscripten's emscripten_run_script* (reachable from Python through ctypes) hands a string to a
// direct `eval` inside the interpreter's module, where its `require` is in scope. With the global
// `eval` replaced, that call is an ordinary call of this function and evaluates nothing.
Object.defineProperty(globalThis, 'eval', {
  value: function evalRefused(): never {
    throw new EvalError('code generation from strings is disabled in the sandbox');
  },
  writable: false,
  configurable: false,
});
// Stack-trace hooks hand out call sites (and through them receivers): fix them to nothing.
Object.defineProperty(Error, 'prepareStackTrace', { value: undefined, writable: false, configurable: false });

// WebAssembly interpreters grow their memory through this one method: past the run's limit the
// growth fails and the host is told, which ends the run with 137.
let memoryLimitBytes = Number.POSITIVE_INFINITY;
interface WasmMemory {
  buffer: ArrayBuffer;
  grow(delta: number): number;
}
const memoryPrototype = (globalThis as unknown as { WebAssembly: { Memory: { prototype: WasmMemory } } }).WebAssembly.Memory.prototype;
const grow = memoryPrototype.grow;
memoryPrototype.grow = function (this: WasmMemory, delta: number): number {
  if (this.buffer.byteLength + delta * 65536 > memoryLimitBytes) {
    send({ type: 'oom' });
    throw new RangeError('WebAssembly.Memory.grow(): the run is past its memory limit');
  }
  return grow.call(this, delta);
};

const engines: Record<string, Engine> = {
  typescript: new QuickJsEngine(),
  bash: new BashEngine(),
  python: new PyodideEngine(),
};

/** Freezes time and seeds randomness for the length of one run; answers the undo. */
function pinWorld(nowMs: number, seed: Uint8Array, hideRequire: boolean): () => void {
  const rng = seededRng(seed);
  const RealDate = Date;
  const realRandom = Math.random;
  const realFill = crypto.getRandomValues.bind(crypto);
  class FrozenDate extends RealDate {
    constructor(...args: []) {
      if (args.length === 0) super(nowMs);
      else super(...(args as unknown as [number]));
    }
    static override now(): number {
      return nowMs;
    }
  }
  // Pyodide's loader defines a global `require` (fs, crypto, ws, child_process) for its own use:
  // nothing of the run may find it.
  const scope = globalThis as { require?: unknown };
  // (Not around bash runs: they reach no JavaScript, and an interpreter loading in the background
  // meanwhile needs it.)
  const realRequire = hideRequire ? scope.require : undefined;
  if (hideRequire) delete scope.require;
  globalThis.Date = FrozenDate as DateConstructor;
  Math.random = rng.random;
  crypto.getRandomValues = (<T extends ArrayBufferView | null>(array: T): T => {
    if (array) rng.fill(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
    return array;
  }) as typeof crypto.getRandomValues;
  return () => {
    if (realRequire !== undefined) scope.require = realRequire;
    globalThis.Date = RealDate;
    Math.random = realRandom;
    crypto.getRandomValues = realFill as typeof crypto.getRandomValues;
  };
}

port.on('message', (message: ToWorker) => {
  if (message.type === 'prepare') {
    engines[message.runtime]!.prepare();
    return;
  }
  void (async () => {
    const engine = engines[message.runtime]!;
    const tree = new VirtualTree(message.entries, message.quotaBytes, message.nowMs);
    memoryLimitBytes = message.memoryLimitBytes;
    let sent = { stdout: 0, stderr: 0 };
    const write = (stream: 'stdout' | 'stderr', text: string) => {
      // The host keeps at most the cap; sending much more would only cost memory.
      if (text.length === 0 || sent[stream] > message.outputLimitBytes) return;
      sent[stream] += Buffer.byteLength(text, 'utf8');
      send({ type: 'out', stream, text });
    };
    try {
      await engine.ready();
    } catch (error) {
      write('stderr', `sandbox error: the ${message.runtime} interpreter did not load: ${(error as Error)?.message ?? String(error)}\n`);
      send({ type: 'done', exitCode: 1, changes: null });
      return;
    }
    send({ type: 'started' });
    const unpin = pinWorld(message.nowMs, message.seed, message.runtime !== 'bash');
    let result: FromWorker;
    try {
      const { exitCode } = await engine.run({ code: message.code, tree, nowMs: message.nowMs, seed: message.seed, memoryLimitBytes: message.memoryLimitBytes, outputLimitBytes: message.outputLimitBytes, write });
      result = { type: 'done', exitCode, changes: exitCode === OUT_OF_MEMORY ? null : tree.changes() };
    } catch (error) {
      if (error instanceof QuotaExceeded) {
        write('stderr', `${error.message}; its changes were not kept\n`);
        result = { type: 'done', exitCode: 1, changes: null };
      } else {
        write('stderr', `sandbox error: ${(error as Error)?.message ?? String(error)}\n`);
        result = { type: 'done', exitCode: 1, changes: null };
      }
    } finally {
      unpin();
      memoryLimitBytes = Number.POSITIVE_INFINITY;
    }
    send(result);
    engine.prepare();
  })();
});
