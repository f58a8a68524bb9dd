import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileBlobStore } from '../../../src/providers/blobs/file-blob-store.js';

describe('FileBlobStore', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(path.join(tmpdir(), 'blob-store-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('stores a blob under its hash and reads it back', async () => {
    const store = new FileBlobStore(directory);
    const ref = await store.put(new TextEncoder().encode('hello'));
    expect(ref.size).toBe(5);
    expect(readdirSync(directory)).toEqual([ref.sha256]);
    expect(readFileSync(path.join(directory, ref.sha256), 'utf8')).toBe('hello');
  });

  it('leaves no file behind when the source fails before the file is even open', async () => {
    const store = new FileBlobStore(directory);
    for (let attempt = 0; attempt < 20; attempt++) {
      async function* failing() {
        yield new Uint8Array(10);
        throw new Error('source broke');
      }
      await expect(store.put(failing())).rejects.toThrow('source broke');
    }
    expect(readdirSync(directory)).toEqual([]);
  });

  it('leaves no file behind past maxBytes', async () => {
    const store = new FileBlobStore(directory);
    await expect(store.put(new Uint8Array(2000), { maxBytes: 1000 })).rejects.toMatchObject({ code: 'payload_too_large' });
    expect(readdirSync(directory)).toEqual([]);
  });
});
