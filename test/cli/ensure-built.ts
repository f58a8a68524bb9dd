// Tests that run the package as a user would (a child `node` process) need dist/ to match src/.
// This builds it once when any compiled file is missing or older than its source. Test files run
// in parallel workers, so a lock directory keeps two workers from running tsc over each other.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** The repository root (/work/main). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The built command line entry. */
export const CLI = path.join(ROOT, 'dist/cli/main.js');

const run = promisify(execFile);
const LOCK = path.join(os.tmpdir(), `agent-services-build-${Buffer.from(ROOT).toString('hex').slice(-24)}.lock`);
/** A lock older than this is left over from a killed worker (a build on a loaded machine can take minutes). */
const STALE_LOCK_MS = 600_000;

function sources(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sources(full));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) found.push(full);
  }
  return found;
}

function mtimeOf(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/** True when some src/**.ts has no dist/**.js or a newer modification time than it. */
export function distIsStale(): boolean {
  const src = path.join(ROOT, 'src');
  return sources(src).some((file) => {
    const built = path.join(ROOT, 'dist', path.relative(src, file)).replace(/\.ts$/, '.js');
    const builtAt = mtimeOf(built);
    return builtAt === undefined || builtAt < mtimeOf(file)!;
  });
}

async function acquireLock(): Promise<void> {
  for (;;) {
    try {
      mkdirSync(LOCK);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const since = mtimeOf(LOCK);
      if (since !== undefined && Date.now() - since > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Runs `npm run build` when dist/ is missing or older than src/. */
export async function ensureBuilt(): Promise<void> {
  if (!distIsStale()) return;
  await acquireLock();
  try {
    if (distIsStale()) await run('npm', ['run', 'build'], { cwd: ROOT });
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
