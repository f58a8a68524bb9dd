import { execFile, spawn, spawnSync } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sandbox, SandboxChanges, SandboxRequest, SandboxResult } from '../../core/ports/sandbox.js';
import { nodePreload, pythonDriver } from './bubblewrap-files.js';
import { OutputSink, appendLine } from './output-sink.js';
import { seedWords } from './seeded-rng.js';

/** Names at `/` that belong to the system mounts, never to the agent's tree. */
const RESERVED = new Set(['usr', 'bin', 'lib', 'lib64', 'sbin', 'proc', 'dev', 'sys', 'etc', 'run', '.sandbox']);

/** Options of {@link BubblewrapSandbox}. */
export interface BubblewrapOptions {
  /** Runs at once (default: the number of CPUs). */
  size?: number;
  /** Paths of the programs (defaults: bwrap, prlimit, /usr/bin/node, /usr/bin/python3, /usr/bin/bash). */
  bwrap?: string;
  prlimit?: string;
  node?: string;
  python?: string;
  bash?: string;
}

/** A `bwrap` command that runs `true` in every namespace a run gets: it succeeds when runs can start. */
const PROBE_ARGS = ['--unshare-all', '--die-with-parent', '--ro-bind', '/usr', '/usr', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64', '--symlink', 'usr/bin', '/bin', '--', '/usr/bin/true'];

/** Whether `bwrap` runs here with unprivileged namespaces; the reason when it does not. */
export function bubblewrapUnavailable(bwrap = 'bwrap'): string | undefined {
  const probe = spawnSync(bwrap, PROBE_ARGS, { timeout: 20_000, stdio: 'pipe' });
  if (probe.error) return `${bwrap}: ${probe.error.message}`;
  if (probe.status !== 0) return `${bwrap} cannot create namespaces here: ${probe.stderr.toString().trim()}`;
  return undefined;
}

/**
 * Real processes (node, python3, bash) under bubblewrap: every namespace unshared (no network,
 * own PIDs), a cleared environment, the system's /usr read-only, the agent's tree materialised in
 * a private temporary directory as `/` and synced back when the run exits by itself; memory
 * capped with prlimit, the process group killed with SIGKILL at the timeout.
 */
export class BubblewrapSandbox implements Sandbox {
  readonly kind = 'bubblewrap';
  private readonly size: number;
  private running = 0;
  private readonly queue: Array<() => void> = [];
  private readonly children = new Set<number>();
  private closed = false;

  constructor(private readonly options: BubblewrapOptions = {}) {
    this.size = options.size ?? availableParallelism();
  }

  /**
   * The readiness probe (`GET /readyz`): `bwrap` still starts an empty run in fresh namespaces
   * (a package upgrade or a changed sysctl can take that away from a running service).
   * @throws Error when it does not, or when `signal` aborts first
   */
  ready(signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      execFile(this.options.bwrap ?? 'bwrap', PROBE_ARGS, { signal }, (error, _stdout, stderr) => (error ? reject(new Error(`bwrap: ${String(stderr).trim() || error.message}`)) : resolve()));
    });
  }

  async run(request: SandboxRequest): Promise<SandboxResult> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.queue.push(resolve));
    this.running++;
    try {
      return await this.execute(request);
    } finally {
      this.running--;
      this.queue.shift()?.();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const pid of this.children) killGroup(pid);
    for (const next of this.queue.splice(0)) next();
  }

  private async execute(request: SandboxRequest): Promise<SandboxResult> {
    if (this.closed) return { stdout: '', stderr: 'the sandbox is closed\n', exitCode: 1, durationMs: 0, changes: null };
    const dir = await mkdtemp(join(tmpdir(), 'agent-run-'));
    try {
      const root = join(dir, 'fs');
      const driver = join(dir, 'sandbox');
      await mkdir(root);
      await mkdir(driver);
      for (const entry of request.entries) {
        if (RESERVED.has(entry.path.split('/')[1]!)) continue;
        if (entry.type === 'directory') await mkdir(join(root, entry.path), { recursive: true });
        else await writeFile(join(root, entry.path), entry.bytes ?? new Uint8Array());
      }
      await mkdir(join(root, 'home/agent'), { recursive: true });
      const before = await snapshotTree(root);
      const command = await this.prepare(request, driver);
      const outcome = await this.spawn(request, root, driver, command);
      const changes = outcome.kept ? diff(request, before, await snapshotTree(root)) : null;
      let { exitCode, stderr } = outcome;
      if (changes && total(await snapshotTree(root)) > request.quotaBytes) {
        stderr = appendLine(stderr, "the run's files exceed the agent's filesystem quota; its changes were not kept");
        return { stdout: outcome.stdout, stderr, exitCode: exitCode === 0 ? 1 : exitCode, durationMs: outcome.durationMs, changes: null };
      }
      return { stdout: outcome.stdout, stderr, exitCode, durationMs: outcome.durationMs, changes };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** Writes the driver files and answers the command line inside the sandbox. */
  private async prepare(request: SandboxRequest, driver: string): Promise<string[]> {
    const seed = Number(new DataView(request.seed.buffer, request.seed.byteOffset, 8).getBigUint64(0, true) >> 11n);
    switch (request.runtime) {
      case 'python':
        await writeFile(join(driver, 'main.py'), request.code);
        await writeFile(join(driver, 'run.py'), pythonDriver(seed, request.nowMs / 1000));
        return [this.options.python ?? '/usr/bin/python3', '-I', '-S', '/.sandbox/run.py'];
      case 'typescript': {
        let source: string;
        try {
          // Loaded on first use: the parser costs the server's start-up nothing until then.
          const { stripTypes } = await import('./strip-types.js');
          source = stripTypes(request.code);
        } catch (error) {
          source = `throw new SyntaxError(${JSON.stringify((error as Error).message)});`;
        }
        await writeFile(join(driver, 'main.mjs'), source);
        await writeFile(join(driver, 'preload.mjs'), nodePreload(seedWords(request.seed), request.nowMs));
        const heapMb = Math.max(16, Math.floor(request.memoryLimitBytes / 1024 ** 2));
        return [this.options.node ?? '/usr/bin/node', `--max-old-space-size=${heapMb}`, '--no-warnings', '--import', '/.sandbox/preload.mjs', '/.sandbox/main.mjs'];
      }
      case 'bash':
        // Assigning RANDOM seeds bash's generator.
        await writeFile(join(driver, 'main.sh'), `RANDOM=${seed % 32768}\n${request.code}`);
        return [this.options.bash ?? '/usr/bin/bash', '/.sandbox/main.sh'];
    }
  }

  private spawn(request: SandboxRequest, root: string, driver: string, command: string[]): Promise<{ stdout: string; stderr: string; exitCode: number; durationMs: number; kept: boolean }> {
    const args = [
      `--data=${request.memoryLimitBytes}`,
      '--nproc=256',
      `--fsize=${Math.max(1, Math.min(request.quotaBytes, Number.MAX_SAFE_INTEGER))}`,
      '--',
      this.options.bwrap ?? 'bwrap',
      '--unshare-all',
      '--die-with-parent',
      '--clearenv',
      '--new-session',
      '--bind',
      root,
      '/',
      '--ro-bind',
      '/usr',
      '/usr',
      '--symlink',
      'usr/bin',
      '/bin',
      '--symlink',
      'usr/lib',
      '/lib',
      '--symlink',
      'usr/lib64',
      '/lib64',
      '--symlink',
      'usr/sbin',
      '/sbin',
      '--ro-bind',
      driver,
      '/.sandbox',
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      '--chdir',
      '/home/agent',
      '--setenv',
      'HOME',
      '/home/agent',
      '--setenv',
      'PATH',
      '/usr/local/bin:/usr/bin:/bin',
      '--setenv',
      'LANG',
      'C.UTF-8',
      '--setenv',
      'PYTHONHASHSEED',
      '0',
      '--setenv',
      'FUNCNEST',
      '10000',
      '--setenv',
      'USER',
      'agent',
      '--setenv',
      'PWD',
      '/home/agent',
      '--',
      ...command,
    ];
    return new Promise((resolve) => {
      const started = performance.now();
      const child = spawn(this.options.prlimit ?? 'prlimit', args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin' } });
      const pid = child.pid;
      if (pid !== undefined) this.children.add(pid);
      const stdout = new OutputSink(request.outputLimitBytes);
      const stderr = new OutputSink(request.outputLimitBytes);
      const decoders = { out: new TextDecoder(), err: new TextDecoder() };
      child.stdout.on('data', (chunk: Buffer) => stdout.push(decoders.out.decode(chunk, { stream: true })));
      child.stderr.on('data', (chunk: Buffer) => stderr.push(decoders.err.decode(chunk, { stream: true })));
      let ended: { code: number; reason: string } | undefined;
      const end = (code: number, reason: string) => {
        ended ??= { code, reason };
        if (pid !== undefined) killGroup(pid);
      };
      const timer = setTimeout(() => end(124, `timed out after ${request.timeoutSeconds} s`), request.timeoutSeconds * 1000);
      const onAbort = () => end(1, 'run cancelled');
      request.signal?.addEventListener('abort', onAbort, { once: true });
      child.on('error', (error) => end(1, `sandbox failed: ${error.message}`));
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
        if (pid !== undefined) this.children.delete(pid);
        const durationMs = Math.round(performance.now() - started);
        let err = stderr.text();
        if (stdout.truncated || stderr.truncated) err = appendLine(err, '[output truncated]');
        if (ended) return resolve({ stdout: stdout.text(), stderr: appendLine(err, ended.reason), exitCode: ended.code, durationMs, kept: false });
        // Out of memory: V8's fatal heap error aborts node, a failed allocation kills the process.
        const outOfMemory = signal === 'SIGKILL' || signal === 'SIGABRT' || code === 137 || /JavaScript heap out of memory|MemoryError|Cannot allocate memory/.test(err);
        if (outOfMemory && code !== 0) {
          return resolve({ stdout: stdout.text(), stderr: appendLine(err, `killed: past the memory limit of ${Math.round(request.memoryLimitBytes / 1024 ** 2)} MiB`), exitCode: 137, durationMs, kept: false });
        }
        resolve({ stdout: stdout.text(), stderr: err, exitCode: code ?? 1, durationMs, kept: true });
      });
    });
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

type Tree = Map<string, { type: 'file' | 'directory'; bytes?: Buffer }>;

/** The agent's part of the materialised tree (system mount points and links left out). */
async function snapshotTree(root: string, dir = '/', into: Tree = new Map()): Promise<Tree> {
  for (const name of await readdir(join(root, dir))) {
    if (dir === '/' && RESERVED.has(name)) continue;
    const path = dir === '/' ? `/${name}` : `${dir}/${name}`;
    const stat = await lstat(join(root, path));
    if (stat.isDirectory()) {
      into.set(path, { type: 'directory' });
      await snapshotTree(root, path, into);
    } else if (stat.isFile()) {
      into.set(path, { type: 'file', bytes: await readFile(join(root, path)) });
    }
  }
  return into;
}

function total(tree: Tree): number {
  let bytes = 0;
  for (const entry of tree.values()) bytes += entry.bytes?.length ?? 0;
  return bytes;
}

/** What changed between the materialised tree before and after (the agent's own entries as the base). */
function diff(request: SandboxRequest, before: Tree, after: Tree): SandboxChanges {
  const initial = new Map(request.entries.map((entry) => [entry.path, entry.type]));
  const removed = [...initial.keys()].filter((path) => after.get(path)?.type !== initial.get(path));
  const directories: string[] = [];
  const files: SandboxChanges['files'] = [];
  for (const [path, entry] of after) {
    if (entry.type === 'directory') {
      if (initial.get(path) !== 'directory') directories.push(path);
    } else if (initial.get(path) !== 'file' || !before.get(path)?.bytes?.equals(entry.bytes!)) {
      files.push({ path, bytes: new Uint8Array(entry.bytes!) });
    }
  }
  return { removed: removed.sort(), directories: directories.sort(), files };
}
