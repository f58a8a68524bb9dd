import type { SandboxChanges, SandboxEntry } from '../../core/ports/sandbox.js';

/** A POSIX-style filesystem error (`code` such as ENOENT), as interpreters expect them. */
export class FsError extends Error {
  constructor(
    readonly code: 'ENOENT' | 'EISDIR' | 'ENOTDIR' | 'EEXIST' | 'ENOTEMPTY' | 'ENOSPC' | 'EINVAL' | 'EPERM',
    readonly syscall: string,
    readonly path: string,
  ) {
    super(`${code}: ${FsError.describe(code)}, ${syscall} '${path}'`);
  }

  private static describe(code: string): string {
    const text: Record<string, string> = {
      ENOENT: 'no such file or directory',
      EISDIR: 'illegal operation on a directory',
      ENOTDIR: 'not a directory',
      EEXIST: 'file already exists',
      ENOTEMPTY: 'directory not empty',
      ENOSPC: 'no space left on device (the agent filesystem quota)',
      EINVAL: 'invalid argument',
      EPERM: 'operation not permitted',
    };
    return text[code] ?? code;
  }
}

/** A file or directory of the tree. */
export interface TreeNode {
  type: 'file' | 'directory';
  bytes: Uint8Array;
  mtimeMs: number;
  mode: number;
}

const EMPTY = new Uint8Array(0);

/**
 * The agent's files inside one run: a map of normalised paths, with the quota enforced on every
 * write (ENOSPC) and the difference from the starting tree available as {@link SandboxChanges}.
 * There are no symbolic links, so no path can lead outside the tree.
 */
export class VirtualTree {
  private readonly nodes = new Map<string, TreeNode>();
  private readonly children = new Map<string, Set<string>>();
  private readonly initial = new Map<string, 'file' | 'directory'>();
  private readonly written = new Set<string>();
  private used = 0;

  constructor(
    entries: SandboxEntry[],
    private readonly quotaBytes: number,
    private readonly nowMs: number,
  ) {
    this.set('/', { type: 'directory', bytes: EMPTY, mtimeMs: nowMs, mode: 0o755 });
    for (const entry of entries) {
      const bytes = entry.bytes ?? EMPTY;
      this.set(entry.path, { type: entry.type, bytes, mtimeMs: entry.modifiedMs, mode: entry.type === 'file' ? 0o644 : 0o755 });
      this.initial.set(entry.path, entry.type);
      if (entry.type === 'file') this.used += bytes.length;
    }
  }

  /** Resolves `path` against `cwd` into a normalised absolute path; `..` stops at `/`. */
  static resolve(cwd: string, path: string): string {
    const parts: string[] = [];
    for (const segment of (path.startsWith('/') ? path : `${cwd}/${path}`).split('/')) {
      if (segment === '' || segment === '.') continue;
      if (segment === '..') parts.pop();
      else parts.push(segment);
    }
    return '/' + parts.join('/');
  }

  /** The node at a normalised path, or undefined. */
  get(path: string): TreeNode | undefined {
    return this.nodes.get(path);
  }

  /** The node at a path. @throws FsError ENOENT */
  stat(path: string, syscall = 'stat'): TreeNode {
    const node = this.nodes.get(path);
    if (!node) throw new FsError('ENOENT', syscall, path);
    return node;
  }

  /** Names in a directory, sorted. @throws FsError ENOENT, ENOTDIR */
  readdir(path: string): string[] {
    const node = this.stat(path, 'scandir');
    if (node.type !== 'directory') throw new FsError('ENOTDIR', 'scandir', path);
    return [...(this.children.get(path) ?? [])].sort();
  }

  /** A file's bytes. @throws FsError ENOENT, EISDIR */
  read(path: string): Uint8Array {
    const node = this.stat(path, 'open');
    if (node.type === 'directory') throw new FsError('EISDIR', 'read', path);
    return node.bytes;
  }

  /** Creates or replaces a file; its directory must exist. @throws FsError ENOENT, ENOTDIR, EISDIR, ENOSPC */
  write(path: string, bytes: Uint8Array): void {
    if (path === '/') throw new FsError('EISDIR', 'open', path);
    this.requireParent(path, 'open');
    const existing = this.nodes.get(path);
    if (existing?.type === 'directory') throw new FsError('EISDIR', 'open', path);
    const after = this.used - (existing?.bytes.length ?? 0) + bytes.length;
    if (after > this.quotaBytes) throw new FsError('ENOSPC', 'write', path);
    this.used = after;
    this.set(path, { type: 'file', bytes, mtimeMs: this.nowMs, mode: existing?.mode ?? 0o644 });
    this.written.add(path);
  }

  /** Appends to a file (created if missing). @throws FsError as {@link write} */
  append(path: string, bytes: Uint8Array): void {
    const existing = this.nodes.get(path);
    if (existing?.type === 'directory') throw new FsError('EISDIR', 'open', path);
    const before = existing?.bytes ?? EMPTY;
    const joined = new Uint8Array(before.length + bytes.length);
    joined.set(before);
    joined.set(bytes, before.length);
    this.write(path, joined);
  }

  /** Creates a directory (with `recursive`, its parents too, and no error if it exists). @throws FsError EEXIST, ENOENT, ENOTDIR */
  mkdir(path: string, recursive = false): void {
    const existing = this.nodes.get(path);
    if (existing) {
      if (recursive && existing.type === 'directory') return;
      throw new FsError('EEXIST', 'mkdir', path);
    }
    if (recursive) {
      const parent = VirtualTree.parent(path);
      if (!this.nodes.has(parent)) this.mkdir(parent, true);
    }
    this.requireParent(path, 'mkdir');
    this.set(path, { type: 'directory', bytes: EMPTY, mtimeMs: this.nowMs, mode: 0o755 });
  }

  /** Removes a file, or a directory (non-empty only with `recursive`). @throws FsError ENOENT, ENOTEMPTY, EPERM */
  remove(path: string, recursive = false): void {
    if (path === '/') throw new FsError('EPERM', 'rm', path);
    const node = this.stat(path, 'rm');
    if (node.type === 'directory') {
      const names = [...(this.children.get(path) ?? [])];
      if (names.length > 0 && !recursive) throw new FsError('ENOTEMPTY', 'rmdir', path);
      for (const name of names) this.remove(VirtualTree.join(path, name), true);
    } else {
      this.used -= node.bytes.length;
    }
    this.nodes.delete(path);
    this.children.delete(path);
    this.children.get(VirtualTree.parent(path))?.delete(VirtualTree.base(path));
    this.written.delete(path);
  }

  /** Moves a file or directory (replacing a file at the target). @throws FsError ENOENT, EINVAL, EISDIR, ENOTDIR */
  rename(from: string, to: string): void {
    const node = this.stat(from, 'rename');
    if (from === to) return;
    if (to === '/' || to.startsWith(from + '/')) throw new FsError('EINVAL', 'rename', to);
    this.requireParent(to, 'rename');
    const target = this.nodes.get(to);
    if (target?.type === 'directory') {
      if (node.type !== 'directory') throw new FsError('EISDIR', 'rename', to);
      if ((this.children.get(to)?.size ?? 0) > 0) throw new FsError('ENOTEMPTY', 'rename', to);
    } else if (target && node.type === 'directory') throw new FsError('ENOTDIR', 'rename', to);
    const moved: Array<[string, TreeNode]> = [];
    for (const [path, value] of this.nodes) if (path === from || path.startsWith(from + '/')) moved.push([path, value]);
    if (target) this.remove(to, true);
    for (const [path] of moved.reverse()) this.remove(path, true);
    for (const [path, value] of moved.reverse()) {
      const next = to + path.slice(from.length);
      this.set(next, value);
      if (value.type === 'file') {
        this.used += value.bytes.length;
        this.written.add(next);
      }
    }
  }

  /** Changes a node's mode bits. @throws FsError ENOENT */
  chmod(path: string, mode: number): void {
    this.stat(path, 'chmod').mode = mode & 0o7777;
  }

  /** Sets a node's modification time. @throws FsError ENOENT */
  touch(path: string, mtimeMs: number): void {
    this.stat(path, 'utime').mtimeMs = mtimeMs;
  }

  /** Every path of the tree, sorted. */
  paths(): string[] {
    return [...this.nodes.keys()].sort();
  }

  /** What the run changed, relative to the starting tree. */
  changes(): SandboxChanges {
    const removed: string[] = [];
    for (const [path, type] of this.initial) {
      const now = this.nodes.get(path);
      if (!now || now.type !== type) removed.push(path);
    }
    const directories: string[] = [];
    const files: SandboxChanges['files'] = [];
    for (const [path, node] of this.nodes) {
      if (path === '/') continue;
      if (node.type === 'directory' && this.initial.get(path) !== 'directory') directories.push(path);
      if (node.type === 'file' && (this.written.has(path) || this.initial.get(path) !== 'file')) files.push({ path, bytes: node.bytes });
    }
    return { removed: removed.sort(), directories: directories.sort(), files };
  }

  private requireParent(path: string, syscall: string): void {
    const parent = this.nodes.get(VirtualTree.parent(path));
    if (!parent) throw new FsError('ENOENT', syscall, path);
    if (parent.type !== 'directory') throw new FsError('ENOTDIR', syscall, path);
  }

  private set(path: string, node: TreeNode): void {
    this.nodes.set(path, node);
    if (node.type === 'directory' && !this.children.has(path)) this.children.set(path, new Set());
    if (path !== '/') {
      const parent = VirtualTree.parent(path);
      let names = this.children.get(parent);
      if (!names) this.children.set(parent, (names = new Set()));
      names.add(VirtualTree.base(path));
    }
  }

  /** Parent of a normalised path. */
  static parent(path: string): string {
    const cut = path.lastIndexOf('/');
    return cut <= 0 ? '/' : path.slice(0, cut);
  }

  /** Last segment of a normalised path. */
  static base(path: string): string {
    return path.slice(path.lastIndexOf('/') + 1);
  }

  /** Joins a directory and a name. */
  static join(dir: string, name: string): string {
    return dir === '/' ? `/${name}` : `${dir}/${name}`;
  }
}
