import type { BufferEncoding, CpOptions, FileContent, FsStat, IFileSystem, MkdirOptions, RmOptions } from 'just-bash';
import { FsError, VirtualTree, type TreeNode } from './virtual-tree.js';

type Encoding = BufferEncoding | null | undefined;
type ReadFileOptions = Exclude<Parameters<IFileSystem['readFile']>[1], string | undefined>;
type WriteFileOptions = Exclude<Parameters<IFileSystem['writeFile']>[2], string | undefined>;
type DirentEntry = Awaited<ReturnType<NonNullable<IFileSystem['readdirWithFileTypes']>>>[number];

const encodingOf = (options?: ReadFileOptions | WriteFileOptions | BufferEncoding): Encoding => (typeof options === 'string' ? options : (options?.encoding as Encoding));

/** Bytes of written content: strings in the given encoding (UTF-8 by default). */
function toBytes(content: FileContent, encoding: Encoding): Uint8Array {
  if (typeof content !== 'string') return new Uint8Array(content);
  return new Uint8Array(Buffer.from(content, (encoding ?? 'utf8') as globalThis.BufferEncoding));
}

const statOf = (node: TreeNode): FsStat => ({
  isFile: node.type === 'file',
  isDirectory: node.type === 'directory',
  isSymbolicLink: false,
  mode: node.mode | (node.type === 'directory' ? 0o040000 : 0o100000),
  size: node.bytes.length,
  mtime: new Date(node.mtimeMs),
});

/**
 * just-bash's filesystem interface over the run's {@link VirtualTree}. Links are refused (EPERM):
 * the agent's tree holds only files and directories, so no path can point outside it.
 */
export class TreeFileSystem implements IFileSystem {
  constructor(private readonly tree: VirtualTree) {}

  private abs(path: string): string {
    return VirtualTree.resolve('/', path);
  }

  async readFile(path: string, options?: ReadFileOptions | BufferEncoding): Promise<string> {
    return Buffer.from(this.tree.read(this.abs(path))).toString((encodingOf(options) ?? 'utf8') as globalThis.BufferEncoding);
  }

  async readFileBuffer(path: string): Promise<Uint8Array> {
    return this.tree.read(this.abs(path));
  }

  async writeFile(path: string, content: FileContent, options?: WriteFileOptions | BufferEncoding): Promise<void> {
    this.tree.write(this.abs(path), toBytes(content, encodingOf(options)));
  }

  async appendFile(path: string, content: FileContent, options?: WriteFileOptions | BufferEncoding): Promise<void> {
    this.tree.append(this.abs(path), toBytes(content, encodingOf(options)));
  }

  async exists(path: string): Promise<boolean> {
    return this.tree.get(this.abs(path)) !== undefined;
  }

  async stat(path: string): Promise<FsStat> {
    return statOf(this.tree.stat(this.abs(path)));
  }

  async lstat(path: string): Promise<FsStat> {
    return statOf(this.tree.stat(this.abs(path), 'lstat'));
  }

  async mkdir(path: string, options?: MkdirOptions): Promise<void> {
    this.tree.mkdir(this.abs(path), options?.recursive ?? false);
  }

  async readdir(path: string): Promise<string[]> {
    return this.tree.readdir(this.abs(path));
  }

  async readdirWithFileTypes(path: string): Promise<DirentEntry[]> {
    const dir = this.abs(path);
    return this.tree.readdir(dir).map((name) => {
      const node = this.tree.get(VirtualTree.join(dir, name));
      return { name, isFile: node?.type === 'file', isDirectory: node?.type === 'directory', isSymbolicLink: false };
    });
  }

  async rm(path: string, options?: RmOptions): Promise<void> {
    const target = this.abs(path);
    if (!this.tree.get(target) && options?.force) return;
    this.tree.remove(target, options?.recursive ?? false);
  }

  async cp(src: string, dest: string, options?: CpOptions): Promise<void> {
    const from = this.abs(src);
    const to = this.abs(dest);
    const node = this.tree.stat(from, 'cp');
    if (node.type === 'file') return this.tree.write(to, node.bytes);
    if (!options?.recursive) throw new FsError('EISDIR', 'cp', from);
    if (to.startsWith(from + '/')) throw new FsError('EINVAL', 'cp', to);
    this.tree.mkdir(to, true);
    for (const name of this.tree.readdir(from)) await this.cp(VirtualTree.join(from, name), VirtualTree.join(to, name), options);
  }

  async mv(src: string, dest: string): Promise<void> {
    this.tree.rename(this.abs(src), this.abs(dest));
  }

  resolvePath(base: string, path: string): string {
    return VirtualTree.resolve(base, path);
  }

  getAllPaths(): string[] {
    return this.tree.paths();
  }

  async chmod(path: string, mode: number): Promise<void> {
    this.tree.chmod(this.abs(path), mode);
  }

  async symlink(_target: string, linkPath: string): Promise<void> {
    throw new FsError('EPERM', 'symlink', this.abs(linkPath));
  }

  async link(_existingPath: string, newPath: string): Promise<void> {
    throw new FsError('EPERM', 'link', this.abs(newPath));
  }

  async readlink(path: string): Promise<string> {
    this.tree.stat(this.abs(path), 'readlink');
    throw new FsError('EINVAL', 'readlink', this.abs(path));
  }

  async realpath(path: string): Promise<string> {
    const target = this.abs(path);
    this.tree.stat(target, 'realpath');
    return target;
  }

  async utimes(path: string, _atime: Date, mtime: Date): Promise<void> {
    this.tree.touch(this.abs(path), mtime.getTime());
  }
}
