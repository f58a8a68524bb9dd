import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

// Workers are started from a tiny script that loads the worker module: the compiled `.js` in a
// build, or the `.ts` source through tsx's loader when the project runs from source (tests, bench).
// It uses only dynamic import, so it runs whether the worker evaluates it as CommonJS or, when the
// process was started with --input-type=module, as an ES module.
const BOOTSTRAP = `
(async () => {
  const { workerData } = await import('node:worker_threads');
  if (workerData.tsx) (await import(workerData.tsx)).register();
  await import(workerData.entry);
})().catch((error) => { console.error(error); process.exit(70); });
`;

/** Where a worker module is: its URL, and tsx's loader when it is TypeScript source. */
function workerEntry(siblingOf: string, name: string): { entry: string; tsx?: string } {
  const extension = siblingOf.endsWith('.ts') ? '.ts' : '.js';
  const entry = new URL(`./${name}${extension}`, siblingOf).href;
  if (extension === '.js') return { entry };
  // The package's ESM entry (its CommonJS twin cannot register the loader inside a worker).
  const tsxPackage = createRequire(fileURLToPath(siblingOf)).resolve('tsx/package.json');
  const tsx = new URL('./dist/esm/api/index.mjs', pathToFileURL(tsxPackage)).href;
  return { entry, tsx };
}

/**
 * Starts a worker thread running the module `name` (without extension) beside the module whose
 * `import.meta.url` is `siblingOf`, from a build (`.js`) or from source (`.ts`, through tsx).
 */
export function startModuleWorker(siblingOf: string, name: string, options: Omit<WorkerOptions, 'eval' | 'workerData'> = {}): Worker {
  return new Worker(BOOTSTRAP, { ...options, eval: true, workerData: workerEntry(siblingOf, name) });
}
