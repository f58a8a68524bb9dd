import { newQuickJSWASMModule, type QuickJSContext, type QuickJSHandle, type QuickJSRuntime, type QuickJSWASMModule } from 'quickjs-emscripten';
import { GUEST_MODULES, guestPrelude } from './guest-prelude.js';
import { guestRngSource } from './seeded-rng.js';
import { stripTypes } from './strip-types.js';
import { OUT_OF_MEMORY, WORKDIR, type Engine, type EngineExit, type EngineRun } from './engine.js';
import { FsError, VirtualTree } from './virtual-tree.js';

/** QuickJS's own stack budget: deep recursion ends as a RangeError long before the worker's stack. */
const MAX_STACK_BYTES = 512 * 1024;
const ALLOWED = Object.keys(GUEST_MODULES)
  .filter((name) => name.startsWith('node:') || name === 'fs')
  .join(', ');

/** Runs after which a worker's WebAssembly instance is replaced (bounds heap fragmentation). */
const RUNS_PER_INSTANCE = 200;

/**
 * TypeScript and JavaScript in QuickJS compiled to WebAssembly. Every run gets a fresh QuickJS
 * runtime and context (its own heap, atoms and globals: nothing of an earlier run survives as an
 * object) in the worker's WebAssembly instance, which is replaced whenever a run leaves it in
 * doubt (a disposal that fails) and every 200 runs. No host object is reachable except the
 * bridge functions defined here.
 */
export class QuickJsEngine implements Engine {
  readonly runtime = 'typescript' as const;
  private module: Promise<QuickJSWASMModule> | undefined;
  private runs = 0;

  /** Instantiates the worker's WebAssembly instance ahead of the first run. */
  prepare(): void {
    if (this.module) return;
    const module = (this.module = newQuickJSWASMModule());
    module.catch(() => {
      if (this.module === module) this.module = undefined;
    });
  }

  async ready(): Promise<void> {
    this.prepare();
    await this.module;
  }

  async run(run: EngineRun): Promise<EngineExit> {
    this.prepare();
    const module = await this.module!;
    if (++this.runs >= RUNS_PER_INSTANCE) this.retire();
    let source: string;
    try {
      source = stripTypes(run.code);
    } catch (error) {
      run.write('stderr', `SyntaxError: ${(error as Error).message}\n`);
      return { exitCode: 1 };
    }
    const runtime = module.newRuntime();
    runtime.setMemoryLimit(run.memoryLimitBytes);
    runtime.setMaxStackSize(MAX_STACK_BYTES);
    let exitCode: number | undefined;
    runtime.setInterruptHandler(() => exitCode !== undefined);
    runtime.setModuleLoader((name) => {
      const module = GUEST_MODULES[name];
      if (module === undefined) throw new Error(`Cannot import '${name}': only ${ALLOWED} (and fs/promises, path) are available in the sandbox`);
      return module;
    });
    const vm = runtime.newContext();
    const handles: QuickJSHandle[] = [];
    const keep = <T extends QuickJSHandle>(handle: T): T => (handles.push(handle), handle);
    try {
      return {
        exitCode: this.execute(
          vm,
          runtime,
          run,
          source,
          keep,
          () => exitCode,
          (code) => (exitCode ??= code),
        ),
      };
    } finally {
      try {
        for (const handle of handles) if (handle.alive) handle.dispose();
        vm.dispose();
        runtime.dispose();
      } catch {
        // A run that broke QuickJS's bookkeeping must not share an instance with the next one.
        this.retire();
      }
    }
  }

  private retire(): void {
    this.module = undefined;
    this.runs = 0;
    this.prepare();
  }

  private execute(vm: QuickJSContext, runtime: QuickJSRuntime, run: EngineRun, source: string, keep: <T extends QuickJSHandle>(handle: T) => T, exited: () => number | undefined, exit: (code: number) => void): number {
    this.bridge(vm, run, exit);
    const prelude = vm.evalCode(guestPrelude(run.nowMs, guestRngSource(run.seed)), 'prelude.js');
    if (prelude.error) throw new Error(`sandbox prelude failed: ${JSON.stringify(vm.dump(keep(prelude.error)))}`);
    keep(prelude.value);
    if (!run.tree.get(WORKDIR)) run.tree.mkdir(WORKDIR, true);

    const failure = (handle: QuickJSHandle): number => {
      keep(handle);
      const code = exited();
      if (code !== undefined) return code;
      const error = vm.dump(handle) as { name?: string; message?: string; stack?: string } | string;
      if (typeof error === 'object' && error?.message === 'out of memory') {
        run.write('stderr', 'out of memory\n');
        return OUT_OF_MEMORY;
      }
      const text = typeof error === 'object' && error !== null ? `${error.name ?? 'Error'}: ${error.message ?? ''}\n${error.stack ?? ''}` : `${String(error)}\n`;
      run.write('stderr', `Uncaught ${text.replace(/\n*$/, '\n')}`);
      return 1;
    };

    const result = vm.evalCode(source, `${WORKDIR}/main.ts`, { type: 'module' });
    if (result.error) return failure(result.error);
    const promise = keep(result.value);
    const sandbox = keep(vm.getProp(vm.global, '__sandbox'));
    const runNextTimer = keep(vm.getProp(sandbox, 'runNextTimer'));
    // Drive the event loop: microtasks, then due timers in virtual time, until nothing is left.
    for (;;) {
      const jobs = runtime.executePendingJobs();
      if (jobs.error) return failure(jobs.error);
      jobs.dispose();
      const code = exited();
      if (code !== undefined) return code;
      const state = vm.getPromiseState(promise);
      if (state.type === 'rejected') return failure(state.error);
      if (state.type === 'fulfilled' && state.notAPromise !== true) state.value.dispose();
      const ran = vm.callFunction(runNextTimer, vm.undefined);
      if (ran.error) return failure(ran.error);
      const more = vm.dump(ran.value) === true;
      ran.value.dispose();
      if (!more && !runtime.hasPendingJob()) {
        if (state.type === 'pending') {
          // The module awaits something that can never settle (Node exits 13 here).
          run.write('stderr', 'Warning: Detected unsettled top-level await\n');
          return 13;
        }
        break;
      }
    }
    const processHandle = keep(vm.getProp(vm.global, 'process'));
    const code = vm.dump(keep(vm.getProp(processHandle, 'exitCode'))) as unknown;
    return typeof code === 'number' ? code | 0 : 0;
  }

  /** Defines `__host` in the guest: output, exit and the filesystem calls, all over plain values. */
  private bridge(vm: QuickJSContext, run: EngineRun, exit: (code: number) => void): void {
    const host = vm.newObject();
    const fn = (name: string, body: (...args: QuickJSHandle[]) => QuickJSHandle | undefined) => {
      const handle = vm.newFunction(name, body);
      vm.setProp(host, name, handle);
      handle.dispose();
    };
    fn('write', (stream, text) => {
      run.write(vm.getNumber(stream!) === 2 ? 'stderr' : 'stdout', vm.getString(text!));
      return undefined;
    });
    fn('exit', (code) => {
      exit(vm.getNumber(code!) | 0);
      return undefined;
    });
    fn('read', (path) => {
      try {
        const bytes = run.tree.read(VirtualTree.resolve(WORKDIR, vm.getString(path!)));
        return vm.newArrayBuffer(bytes.slice().buffer);
      } catch (error) {
        return vm.newString(JSON.stringify({ err: errorOf(error) }));
      }
    });
    fn('call', (name, args) => {
      try {
        const answer = this.call(run.tree, vm.getString(name!), JSON.parse(vm.getString(args!)) as unknown[]);
        return vm.newString(JSON.stringify({ ok: answer ?? null }));
      } catch (error) {
        return vm.newString(JSON.stringify({ err: errorOf(error) }));
      }
    });
    vm.setProp(vm.global, '__host', host);
    host.dispose();
  }

  private call(tree: VirtualTree, name: string, args: unknown[]): unknown {
    const path = VirtualTree.resolve(WORKDIR, String(args[0]));
    switch (name) {
      case 'write': {
        const bytes = Uint8Array.from(args[1] as number[]);
        return args[2] ? tree.append(path, bytes) : tree.write(path, bytes);
      }
      case 'exists':
        return tree.get(path) !== undefined;
      case 'stat': {
        const node = tree.stat(path);
        return { type: node.type, size: node.bytes.length, mtimeMs: node.mtimeMs, mode: node.mode | (node.type === 'directory' ? 0o040000 : 0o100000) };
      }
      case 'readdir':
        return tree.readdir(path);
      case 'mkdir':
        return tree.mkdir(path, args[1] === true);
      case 'rm':
        if (args[2] === true && !tree.get(path)) return undefined;
        return tree.remove(path, args[1] === true);
      case 'rename':
        return tree.rename(path, VirtualTree.resolve(WORKDIR, String(args[1])));
      default:
        throw new FsError('EINVAL', name, path);
    }
  }
}

function errorOf(error: unknown): { code: string; message: string; syscall?: string; path?: string } {
  if (error instanceof FsError) return { code: error.code, message: error.message, syscall: error.syscall, path: error.path };
  return { code: 'EIO', message: String((error as Error)?.message ?? error) };
}
