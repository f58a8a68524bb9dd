import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AtomicJsonFile } from '../../../src/providers/persistence/atomic-json-file.js';
import { JsonFilePersistence } from '../../../src/providers/persistence/json-file-persistence.js';
import { ensureBuilt, ROOT } from '../../cli/ensure-built.js';

/** Items in the state the writer child writes for counter 0; counter n has BASE_ITEMS + n items. */
const BASE_ITEMS = 30_000;
/** Padding per item: with it a state is about 3 MB of JSON. */
const PAD = 'x'.repeat(64);

interface BigState {
  counter: number;
  items: Array<{ i: number; c: number; pad: string }>;
}

/**
 * The writer child: continues from whatever state the file holds and writes ever larger states
 * through the built adapter, printing each counter once its write has resolved.
 */
const WRITER = `
import { AtomicJsonFile } from ${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist/providers/persistence/atomic-json-file.js')).href)};
const file = new AtomicJsonFile(process.argv[2]);
const previous = await file.read();
let counter = previous ? previous.counter + 1 : 0;
for (;;) {
  const items = Array.from({ length: ${BASE_ITEMS} + counter }, (_, i) => ({ i, c: counter, pad: ${JSON.stringify(PAD)} }));
  await file.write({ counter, items });
  process.stdout.write('wrote ' + counter + '\\n');
  counter++;
}
`;

let dir: string;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  await ensureBuilt();
}, 120_000);

afterEach(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

function tempDir(): string {
  dir = mkdtempSync(path.join(os.tmpdir(), 'atomic-json-file-'));
  return dir;
}

/** Asserts that `text` is one whole state as the writer child writes them, and returns its counter. */
function expectCompleteState(text: string): number {
  const state = JSON.parse(text) as BigState;
  expect(Number.isInteger(state.counter)).toBe(true);
  expect(state.items).toHaveLength(BASE_ITEMS + state.counter);
  expect(state.items.every((item, index) => item.i === index && item.c === state.counter && item.pad === PAD)).toBe(true);
  return state.counter;
}

describe('atomic JSON file', () => {
  it('reads back exactly what it wrote', async () => {
    const file = new AtomicJsonFile<unknown>(path.join(tempDir(), 'state.json'));
    const state = { name: 'alice', balances: { usd: '12.50' }, list: [1, 2, 3], nested: { empty: [], nothing: null } };
    await file.write(state);
    expect(await file.read()).toEqual(state);
    await file.write({ replaced: true });
    expect(await file.read()).toEqual({ replaced: true });
  });

  it('writes the text its stringify function produces', async () => {
    const filename = path.join(tempDir(), 'state.json');
    const file = new AtomicJsonFile<{ b: number; a: number }>(filename, (data) => JSON.stringify(data, null, 2));
    await file.write({ b: 1, a: 2 });
    expect(readFileSync(filename, 'utf8')).toBe('{\n  "b": 1,\n  "a": 2\n}');
  });

  it('reads null when the file does not exist', async () => {
    const file = new AtomicJsonFile<unknown>(path.join(tempDir(), 'missing.json'));
    expect(await file.read()).toBeNull();
  });

  it('leaves no temporary file behind after a write', async () => {
    const filename = path.join(tempDir(), 'state.json');
    await new AtomicJsonFile<unknown>(filename).write({ ok: true });
    expect(existsSync(path.join(dir, '.state.json.tmp'))).toBe(false);
  });

  it('ignores a partial temporary file left by a crash between write and rename, and replaces it on the next write', async () => {
    const filename = path.join(tempDir(), 'state.json');
    const temporary = path.join(dir, '.state.json.tmp');
    const file = new AtomicJsonFile<unknown>(filename);
    await file.write({ counter: 1 });
    writeFileSync(temporary, '{"counter": 2, "items": [1, 2, 3');

    expect(await file.read()).toEqual({ counter: 1 });
    await file.write({ counter: 3 });
    expect(await file.read()).toEqual({ counter: 3 });
    expect(JSON.parse(readFileSync(filename, 'utf8'))).toEqual({ counter: 3 });
    expect(existsSync(temporary)).toBe(false);
  });

  it('fails loudly instead of reading a file that is not JSON', async () => {
    const filename = path.join(tempDir(), 'state.json');
    writeFileSync(filename, 'not json at all');
    await expect(new AtomicJsonFile<unknown>(filename).read()).rejects.toThrow();
  });

  it('leaves one complete state readable when the writer is killed mid-write', async () => {
    const filename = path.join(tempDir(), 'state.json');
    const script = path.join(dir, 'writer.mjs');
    writeFileSync(script, WRITER);

    const KILLS = 8;
    let lastDurable = -1;
    for (let round = 0; round < KILLS; round++) {
      const child = spawn(process.execPath, [script, filename], { stdio: ['ignore', 'pipe', 'pipe'] });
      children.add(child);
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const written: number[] = [];
      const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once('close', (code, signal) => resolve(signal ?? code)));
      // 'close' (not 'exit') so every line the child printed has been read before it is counted.

      // Wait for the first write of this round, then kill after a random further delay so the
      // kill lands at different points of the write cycle (stringify, write, fsync, rename).
      await new Promise<void>((resolve, reject) => {
        let buffered = '';
        child.stdout!.on('data', (chunk: Buffer) => {
          buffered += chunk.toString();
          const lines = buffered.split('\n');
          buffered = lines.pop()!;
          for (const line of lines) written.push(Number(line.replace('wrote ', '')));
          if (written.length > 0) resolve();
        });
        child.once('exit', () => reject(new Error(`writer exited before writing: ${stderr}`)));
      });
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 120)));
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');

      const counter = expectCompleteState(readFileSync(filename, 'utf8'));
      // Every write the child reported as done is durable; at most the one in flight got further.
      const reported = Math.max(...written);
      expect(counter).toBeGreaterThanOrEqual(reported);
      expect(counter).toBeLessThanOrEqual(reported + 1);
      expect(counter).toBeGreaterThan(lastDurable);
      lastDurable = counter;
    }
  });
});

describe('JsonFilePersistence', () => {
  it('loads undefined when the file does not exist', async () => {
    expect(await new JsonFilePersistence(path.join(tempDir(), 'missing.json')).load()).toBeUndefined();
  });

  it('saves canonical JSON and loads it back', async () => {
    const filename = path.join(tempDir(), 'state.json');
    const persistence = new JsonFilePersistence(filename);
    await persistence.save({ b: [2, 1], a: { d: null, c: 'x' } });
    expect(readFileSync(filename, 'utf8')).toBe('{"a":{"c":"x","d":null},"b":[2,1]}');
    expect(await new JsonFilePersistence(filename).load()).toEqual({ a: { c: 'x', d: null }, b: [2, 1] });
  });

  it('rejects with an error naming the file when it does not hold JSON', async () => {
    const filename = path.join(tempDir(), 'state.json');
    writeFileSync(filename, '{"format": "agent-services/snap');
    await expect(new JsonFilePersistence(filename).load()).rejects.toThrow(filename);
  });
});
