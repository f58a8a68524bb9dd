import { describe, expect, it } from 'vitest';
import { FsError, VirtualTree } from '../../../src/providers/sandbox/virtual-tree.js';
import { OutputSink, appendLine } from '../../../src/providers/sandbox/output-sink.js';
import { seededRng } from '../../../src/providers/sandbox/seeded-rng.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof FsError ? error.code : String(error);
  }
  return 'ok';
};

describe('VirtualTree', () => {
  const start = () =>
    new VirtualTree(
      [
        { path: '/data', type: 'directory', modifiedMs: 0 },
        { path: '/data/a.txt', type: 'file', bytes: bytes('aaaa'), modifiedMs: 0 },
        { path: '/old', type: 'directory', modifiedMs: 0 },
      ],
      10,
      1000,
    );

  it('resolves paths against a directory and never climbs above /', () => {
    expect(VirtualTree.resolve('/home/agent', '../../../../etc/passwd')).toBe('/etc/passwd');
    expect(VirtualTree.resolve('/home/agent', 'x/./y')).toBe('/home/agent/x/y');
  });

  it('reports what a run changed: new and rewritten files, new directories, removals', () => {
    const tree = start();
    tree.mkdir('/new/deep', true);
    tree.write('/new/deep/f', bytes('x'));
    tree.write('/data/a.txt', bytes('bb'));
    tree.remove('/old');
    expect(tree.changes()).toEqual({
      removed: ['/old'],
      directories: ['/new', '/new/deep'],
      files: [
        { path: '/data/a.txt', bytes: bytes('bb') },
        { path: '/new/deep/f', bytes: bytes('x') },
      ],
    });
  });

  it('answers POSIX errors and enforces the quota with ENOSPC', () => {
    const tree = start();
    expect(code(() => tree.read('/missing'))).toBe('ENOENT');
    expect(code(() => tree.read('/data'))).toBe('EISDIR');
    expect(code(() => tree.write('/nodir/f', bytes('x')))).toBe('ENOENT');
    expect(code(() => tree.write('/data/a.txt/f', bytes('x')))).toBe('ENOTDIR');
    expect(code(() => tree.remove('/data'))).toBe('ENOTEMPTY');
    expect(code(() => tree.write('/data/b.txt', bytes('1234567')))).toBe('ENOSPC');
    expect(code(() => tree.write('/data/b.txt', bytes('123456')))).toBe('ok');
    expect(code(() => tree.rename('/data', '/data/inside'))).toBe('EINVAL');
  });

  it('moves a directory with everything in it', () => {
    const tree = start();
    tree.rename('/data', '/moved');
    expect(tree.paths()).toEqual(['/', '/moved', '/moved/a.txt', '/old']);
    expect(new TextDecoder().decode(tree.read('/moved/a.txt'))).toBe('aaaa');
  });
});

describe('OutputSink', () => {
  it('keeps at most the cap at a character boundary and remembers the cut', () => {
    const sink = new OutputSink(5);
    sink.push('abc');
    sink.push('déf');
    expect(sink.text()).toBe('abcd');
    expect(sink.truncated).toBe(true);
    expect(appendLine(sink.text(), '[output truncated]')).toBe('abcd\n[output truncated]\n');
  });
});

describe('seededRng', () => {
  it('gives the same sequence for the same seed and another for another seed', () => {
    const a = seededRng(new Uint8Array(32).fill(1));
    const b = seededRng(new Uint8Array(32).fill(1));
    const c = seededRng(new Uint8Array(32).fill(2));
    const take = (rng: typeof a) => [rng.random(), rng.random(), rng.next()];
    const first = take(a);
    expect(take(b)).toEqual(first);
    expect(take(c)).not.toEqual(first);
    expect(first[0]).toBeGreaterThanOrEqual(0);
    expect(first[0]).toBeLessThan(1);
  });
});
