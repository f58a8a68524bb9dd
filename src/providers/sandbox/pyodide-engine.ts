import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { PyodideInterface } from 'pyodide';
import { WORKDIR, type Engine, type EngineExit, type EngineRun } from './engine.js';
import { FsError, VirtualTree } from './virtual-tree.js';
import { PYTHON_MAIN } from './python-main.js';

/** Mount points of the interpreter itself, never part of the agent's tree. */
const SYSTEM_ROOTS = ['/dev', '/proc'];

/**
 * Removes Pyodide's bridges to JavaScript before any agent code runs: the `js` and `pyodide_js`
 * modules are unregistered by the host; this drops every FFI entry point from the modules the
 * interpreter has loaded, so Python code holds no handle to a JavaScript object.
 */
const HARDEN = String.raw`
import sys
for _name in [n for n in list(sys.modules) if n in ('js', 'pyodide_js') or n.startswith('pyodide.ffi') or n == 'pyodide.code' or n == 'pyodide.http' or n == 'pyodide.webloop']:
    sys.modules.pop(_name, None)
import _pyodide_core
for _attr in [a for a in dir(_pyodide_core) if not a.startswith('__')]:
    try:
        delattr(_pyodide_core, _attr)
    except Exception:
        pass
class _Blocked:
    _names = ('js', 'pyodide_js', 'pyodide', '_pyodide', '_pyodide_core', 'pyodide_http', 'micropip', '_pyodide_wasm')
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in self._names:
            raise ImportError(f"module '{name}' is not available in the sandbox")
        return None
sys.meta_path.insert(0, _Blocked())
for _name in [n for n in list(sys.modules) if n.split('.')[0] in _Blocked._names]:
    sys.modules.pop(_name, None)
del _Blocked, _name, _attr, _pyodide_core
`;

type LoadPyodide = typeof import('pyodide').loadPyodide;

interface Prepared {
  py: PyodideInterface;
  /** Files and directories of a pristine interpreter, with their modification times. */
  pristine: Map<string, number>;
}

/**
 * CPython 3 compiled to WebAssembly (Pyodide, standard library, offline). Every run uses an
 * interpreter loaded for it alone; the next one loads in the background while the worker idles.
 */
export class PyodideEngine implements Engine {
  readonly runtime = 'python' as const;
  private spare: Promise<Prepared> | undefined;

  /** Starts loading the next run's interpreter. */
  prepare(): void {
    if (this.spare) return;
    const spare = (this.spare = this.load());
    // A failed load is reported to the run waiting for it; the next run tries a new one.
    spare.catch(() => {
      if (this.spare === spare) this.spare = undefined;
    });
  }

  private async load(): Promise<Prepared> {
    const { loadPyodide } = (await import('pyodide')) as { loadPyodide: LoadPyodide };
    const py = await loadPyodide({
      // Given, not guessed: Pyodide finds its files from a stack trace, which the worker disables.
      indexURL: dirname(createRequire(import.meta.url).resolve('pyodide/package.json')) + '/',
      jsglobals: Object.create(null) as object,
      env: { HOME: WORKDIR, PYTHONHASHSEED: '0', USER: 'agent', PATH: '/usr/bin:/bin' },
      stdin: () => null,
      stdout: () => undefined,
      stderr: () => undefined,
    });
    py.unregisterJsModule('js');
    py.unregisterJsModule('pyodide_js');
    closeSockets(py);
    py.runPython(PYTHON_MAIN);
    py.runPython(HARDEN);
    return { py, pristine: walk(py, new Map()) };
  }

  async ready(): Promise<void> {
    this.prepare();
    await this.spare;
  }

  async run(run: EngineRun): Promise<EngineExit> {
    this.prepare();
    const { py, pristine } = await this.spare!;
    this.spare = undefined;
    if (!run.tree.get(WORKDIR)) run.tree.mkdir(WORKDIR, true);
    const FS = py.FS;
    for (const path of run.tree.paths()) {
      if (path === '/' || SYSTEM_ROOTS.some((root) => path === root || path.startsWith(root + '/'))) continue;
      const node = run.tree.get(path)!;
      if (node.type === 'directory') py.FS.mkdirTree(path);
      else FS.writeFile(path, node.bytes);
    }
    const decoders = { stdout: new TextDecoder(), stderr: new TextDecoder() };
    for (const stream of ['stdout', 'stderr'] as const) {
      const set = stream === 'stdout' ? py.setStdout : py.setStderr;
      set.call(py, { write: (buffer: Uint8Array) => (run.write(stream, decoders[stream].decode(buffer, { stream: true })), buffer.length), isatty: false });
    }
    const main = py.globals.get('__sandbox_main') as (source: string, seed: number, now: number) => number;
    const seed = Number(new DataView(run.seed.buffer, run.seed.byteOffset, 8).getBigUint64(0, true) >> 11n);
    const exitCode = main(run.code, seed, run.nowMs / 1000);
    const start = new Map<string, number>();
    const final = walk(py, start);
    this.syncBack(py, run, pristine, final);
    return { exitCode };
  }

  /** Mirrors the interpreter's final files into the run's tree (system files it did not touch excluded). */
  private syncBack(py: PyodideInterface, run: EngineRun, pristine: Map<string, number>, final: Map<string, number>): void {
    const ours = (path: string, mtime: number) => run.tree.get(path) !== undefined || pristine.get(path) !== mtime;
    // The interpreter's own /dev and /proc hide the agent's files there: their absence says nothing.
    const hidden = (path: string) => SYSTEM_ROOTS.some((root) => path === root || path.startsWith(`${root}/`));
    for (const path of run.tree.paths()) {
      if (path !== '/' && !hidden(path) && !final.has(path) && run.tree.get(path)) run.tree.remove(path, true);
    }
    for (const [path, mtime] of final) {
      if (!ours(path, mtime)) continue;
      const stat = py.FS.stat(path);
      const isDir = py.FS.isDir(stat.mode);
      const existing = run.tree.get(path);
      if (isDir) {
        if (existing?.type === 'file') run.tree.remove(path);
        if (!run.tree.get(path)) run.tree.mkdir(path, true);
        continue;
      }
      const bytes = py.FS.readFile(path) as Uint8Array;
      if (existing?.type === 'file' && equal(existing.bytes, bytes)) continue;
      if (existing?.type === 'directory') run.tree.remove(path, true);
      if (!run.tree.get(VirtualTree.parent(path))) run.tree.mkdir(VirtualTree.parent(path), true);
      try {
        run.tree.write(path, bytes);
      } catch (error) {
        if (error instanceof FsError && error.code === 'ENOSPC') throw new QuotaExceeded();
        throw error;
      }
    }
  }
}

/**
 * Emscripten's socket layer opens real connections in Node (a WebSocket through the `ws`
 * package): every connect, listen and send fails instead, with EOPNOTSUPP.
 */
function closeSockets(py: PyodideInterface): void {
  const module = (py as unknown as { _module: { SOCKFS?: { websocket_sock_ops?: Record<string, unknown> }; ERRNO_CODES?: Record<string, number> } })._module;
  const ops = module.SOCKFS?.websocket_sock_ops;
  if (!ops) throw new Error('sandbox: Pyodide has no socket layer to close; refusing to run Python with network access');
  const ErrnoError = (py.FS as unknown as { ErrnoError: new (errno: number) => Error }).ErrnoError;
  const refuse = () => {
    throw new ErrnoError(module.ERRNO_CODES?.EOPNOTSUPP ?? 138);
  };
  for (const name of ['createPeer', 'connect', 'listen', 'sendmsg', 'accept']) ops[name] = refuse;
}

/** The run's files went past the agent's quota. */
export class QuotaExceeded extends Error {
  constructor() {
    super("the run's files exceed the agent's filesystem quota");
  }
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

/** Every path of the interpreter's filesystem (system mounts excluded) with its modification time. */
function walk(py: PyodideInterface, into: Map<string, number>, dir = '/'): Map<string, number> {
  for (const name of py.FS.readdir(dir) as string[]) {
    if (name === '.' || name === '..') continue;
    const path = dir === '/' ? `/${name}` : `${dir}/${name}`;
    if (SYSTEM_ROOTS.includes(path)) continue;
    const stat = py.FS.lstat(path);
    if (py.FS.isLink(stat.mode)) continue;
    into.set(path, Number(stat.mtime));
    if (py.FS.isDir(stat.mode)) walk(py, into, path);
  }
  return into;
}
