import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DETERMINISM = path.join(ROOT, 'scripts/check-determinism.mjs');
const LAYERS = path.join(ROOT, 'scripts/check-layers.mjs');

const trees: string[] = [];

afterAll(() => {
  for (const tree of trees) rmSync(tree, { recursive: true, force: true });
});

/** A small project that obeys every rule: one module per layer, imports pointing the right way. */
const CLEAN: Record<string, string> = {
  'src/index.ts': "export { createRuntime } from './runtime/create-runtime.js';\nexport { serve } from './http/serve.js';\n",
  'src/core/ports/clock.ts': 'export interface Clock { now(): number }\n',
  'src/core/shared/time.ts': 'export const toIso = (ms: number) => new Date(ms).toISOString();\nexport const epoch = new Date(0);\n',
  'src/core/wallet/wallet.service.ts': "import { toIso } from '../shared/time.js';\n// Never call Date.now() here: time comes from the clock.\nexport const label = 'see Math.random docs';\nexport { toIso };\n",
  'src/sim/sim-clock.ts': "import type { Clock } from '../core/ports/clock.js';\nexport class SimClock implements Clock { now() { return Date.parse('2026-01-01T00:00:00Z'); } }\n",
  'src/sim/seeded-random.ts': 'export const seeded = (seed: number) => seed * 2;\n',
  'src/providers/clock/system-clock.ts': "import type { Clock } from '../../core/ports/clock.js';\nexport class SystemClock implements Clock { now() { return Date.now(); } }\n",
  'src/runtime/create-runtime.ts':
    "import { SimClock } from '../sim/sim-clock.js';\nimport { SystemClock } from '../providers/clock/system-clock.js';\nexport const createRuntime = (live: boolean) => (live ? new SystemClock() : new SimClock());\n",
  'src/http/serve.ts': "import { createRuntime } from '../runtime/create-runtime.js';\nexport const serve = () => createRuntime(false);\n",
  'src/cli/main.ts': "import { serve } from '../http/serve.js';\nimport { createRuntime } from '../index.js';\nserve();\ncreateRuntime(true);\n",
};

/** Writes a fixture tree: the clean project with `changes` applied (null removes a file). */
function tree(changes: Record<string, string | null> = {}): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'checks-'));
  trees.push(root);
  const files = { ...CLEAN, ...changes };
  for (const [file, text] of Object.entries(files)) {
    if (text === null) continue;
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a check script with `cwd` as its working directory. */
function check(script: string, cwd: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [script], { cwd }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') reject(error);
      else resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
    });
  });
}

describe.concurrent('determinism lint (scripts/check-determinism.mjs)', () => {
  it('passes a clean tree', async () => {
    const result = await check(DETERMINISM, tree());
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/determinism lint: ok/);
  });

  it.each([
    ['Date.now()', 'export const now = () => Date.now();', 'Date.now()'],
    ['Math.random()', 'export const roll = () => Math.random();', 'Math.random()'],
    ['new Date() without arguments', 'export const today = () => new Date();', 'new Date() without arguments'],
    ['new Date( ) with only spaces', 'export const today = () => new Date( );', 'new Date() without arguments'],
    ['setTimeout(', 'export const later = (f: () => void) => setTimeout(f, 10);', 'real timers'],
    ['setInterval(', 'export const tick = (f: () => void) => setInterval(f, 10);', 'real timers'],
    ['crypto.randomUUID()', "import { randomUUID } from 'node:crypto';\nexport const id = () => randomUUID();", 'crypto.randomUUID()'],
    ['performance.now()', 'export const t = () => performance.now();', 'performance.now()'],
  ])('reports %s in src/core with file, line and what', async (_name, code, what) => {
    const source = `// a core module\n${code}\n`;
    const result = await check(DETERMINISM, tree({ 'src/core/wallet/fees.ts': source }));
    expect(result.code).toBe(1);
    const line = source.split('\n').findIndex((text) => text.includes(code.split('\n').at(-1)!)) + 1;
    expect(result.stderr).toContain(`src/core/wallet/fees.ts:${line}: ${what}`);
  });

  it('reports a forbidden call in src/sim outside the clock and random modules', async () => {
    const result = await check(DETERMINISM, tree({ 'src/sim/fake-chain.ts': 'export const confirmAt = () => Date.now() + 4000;\n' }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('src/sim/fake-chain.ts:1: Date.now()');
  });

  it('reports every problem, not only the first', async () => {
    const result = await check(DETERMINISM, tree({ 'src/core/a.ts': 'export const a = Date.now();\n', 'src/core/b.ts': 'export const b = Math.random();\n' }));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/2 problem\(s\)/);
    expect(result.stderr).toContain('src/core/a.ts:1');
    expect(result.stderr).toContain('src/core/b.ts:1');
  });

  it('does not report new Date with an argument', async () => {
    const result = await check(DETERMINISM, tree({ 'src/core/shared/dates.ts': "export const a = new Date(0);\nexport const b = new Date('2026-01-01T00:00:00Z');\nexport const c = (ms: number) => new Date(ms);\n" }));
    expect(result.code).toBe(0);
  });

  it('does not report a forbidden name inside a line comment', async () => {
    const result = await check(DETERMINISM, tree({ 'src/core/shared/note.ts': 'export const x = 1; // not Date.now() nor setTimeout(\n' }));
    expect(result.code).toBe(0);
  });

  it('exempts the simulated clock (src/sim/sim-clock.ts) and random modules', async () => {
    const result = await check(
      DETERMINISM,
      tree({
        'src/sim/sim-clock.ts': 'export class SimClock { start = Date.now(); later(f: () => void) { return setTimeout(f, 0); } }\n',
        'src/sim/seeded-random.ts': 'export const fallback = () => Math.random();\n',
      }),
    );
    expect(result.code).toBe(0);
  });

  it('does not exempt a core file because it is named after the clock', async () => {
    const result = await check(DETERMINISM, tree({ 'src/core/ports/clock.ts': 'export const now = () => Date.now();\n' }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('src/core/ports/clock.ts:1: Date.now()');
  });

  it('does not look outside src/core and src/sim (providers may use real time)', async () => {
    const result = await check(DETERMINISM, tree({ 'src/runtime/timers.ts': 'export const t = setTimeout(() => undefined, 1);\n' }));
    expect(result.code).toBe(0);
  });
});

describe.concurrent('layer check (scripts/check-layers.mjs)', () => {
  it('passes a clean tree', async () => {
    const result = await check(LAYERS, tree());
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/layer check: ok \(10 modules, no cycles\)/);
  });

  it('reports a core module importing from sim', async () => {
    const result = await check(LAYERS, tree({ 'src/core/shared/now.ts': "import { SimClock } from '../../sim/sim-clock.js';\nexport const clock = new SimClock();\n" }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('src/core/shared/now.ts: layer core must not import sim (../../sim/sim-clock.js)');
  });

  it.each([
    ['a type-only import', "import type { SimClock } from '../../sim/sim-clock.js';\nexport type C = SimClock;\n"],
    ['a re-export', "export { SimClock } from '../../sim/sim-clock.js';\n"],
    ['a dynamic import', "export const load = () => import('../../sim/sim-clock.js');\n"],
    ['an import spread over several lines', "import {\n  SimClock,\n} from '../../sim/sim-clock.js';\nexport const c = SimClock;\n"],
  ])('reports a core module reaching sim through %s', async (_form, source) => {
    const result = await check(LAYERS, tree({ 'src/core/shared/now.ts': source }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('src/core/shared/now.ts: layer core must not import sim');
  });

  it.each([
    ['sim', 'providers', 'src/sim/fake-chain.ts', "import { SystemClock } from '../providers/clock/system-clock.js';\nexport const c = SystemClock;\n"],
    ['providers', 'sim', 'src/providers/store/file.ts', "import { SimClock } from '../../sim/sim-clock.js';\nexport const c = SimClock;\n"],
    ['core', 'runtime', 'src/core/client.ts', "import { createRuntime } from '../runtime/create-runtime.js';\nexport const c = createRuntime;\n"],
    ['http', 'providers', 'src/http/app.ts', "import { SystemClock } from '../providers/clock/system-clock.js';\nexport const c = SystemClock;\n"],
    ['runtime', 'http', 'src/runtime/boot.ts', "import { serve } from '../http/serve.js';\nexport const c = serve;\n"],
  ])('reports %s importing %s', async (from, to, file, source) => {
    const result = await check(LAYERS, tree({ [file]: source }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${file}: layer ${from} must not import ${to}`);
  });

  it('reports core/shared importing a port (shared holds pure helpers; ports build on them)', async () => {
    const result = await check(LAYERS, tree({ 'src/core/shared/now.ts': "import type { Clock } from '../ports/clock.js';\nexport type C = Clock;\n" }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('src/core/shared/now.ts: core/shared holds pure helpers and must not import core/ports');
  });

  it("reports an area importing another area's handlers, and lets it use that area's schema", async () => {
    const result = await check(
      LAYERS,
      tree({
        'src/core/wallet/wallet.handlers.ts': 'export const handlers = [];\n',
        'src/core/wallet/wallet.schema.ts': 'export const Amount = 1;\n',
        'src/core/phone/phone.service.ts': "import { handlers } from '../wallet/wallet.handlers.js';\nimport { Amount } from '../wallet/wallet.schema.js';\nexport const x = [handlers, Amount];\n",
      }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("src/core/phone/phone.service.ts: area phone must not import area wallet's wallet.handlers.ts");
    expect(result.stderr).not.toContain('wallet.schema');
  });

  it('reports an import cycle a -> b -> a', async () => {
    const result = await check(
      LAYERS,
      tree({
        'src/core/shared/a.ts': "import { b } from './b.js';\nexport const a = () => b();\n",
        'src/core/shared/b.ts': "import { a } from './a.js';\nexport const b = (): unknown => a;\n",
      }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('import cycle: src/core/shared/a.ts -> src/core/shared/b.ts -> src/core/shared/a.ts');
    expect(result.stderr).toMatch(/1 problem\(s\)/);
  });

  it('reports a longer cycle across folders', async () => {
    const result = await check(
      LAYERS,
      tree({
        'src/core/a.ts': "import { b } from './wallet/b.js';\nexport const a = b;\n",
        'src/core/wallet/b.ts': "import { c } from '../shared/c.js';\nexport const b = c;\n",
        'src/core/shared/c.ts': "import type { a } from '../a.js';\nexport const c = 1 as unknown as typeof a;\n",
      }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('import cycle: src/core/a.ts -> src/core/wallet/b.ts -> src/core/shared/c.ts -> src/core/a.ts');
  });

  it('lets core use the pure libraries (zod, hashing, IBAN, base58)', async () => {
    const result = await check(
      LAYERS,
      tree({ 'src/core/shared/money.ts': "import { z } from 'zod';\nimport { keccak_256 } from '@noble/hashes/sha3.js';\nimport { isValidIBAN } from 'ibantools';\nexport const m = [z, keccak_256, isValidIBAN];\n" }),
    );
    expect(result.code).toBe(0);
  });

  it('reports a library with I/O or WebAssembly state in core, which belongs behind a port', async () => {
    const result = await check(LAYERS, tree({ 'src/core/memory/tokens.ts': "import { get_encoding } from '@dqbd/tiktoken';\nexport const e = get_encoding;\n" }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('src/core/memory/tokens.ts: layer core may only use pure libraries, not @dqbd/tiktoken');
  });

  it('lets providers use any library', async () => {
    const result = await check(LAYERS, tree({ 'src/providers/tokens/t.ts': "import { get_encoding } from '@dqbd/tiktoken';\nexport const e = get_encoding;\n" }));
    expect(result.code).toBe(0);
  });
});

describe.concurrent('the repository itself', () => {
  it('passes the determinism lint', async () => {
    const result = await check(DETERMINISM, ROOT);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('passes the layer check', async () => {
    const result = await check(LAYERS, ROOT);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});
