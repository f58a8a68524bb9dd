/**
 * `npm run bench -- <area> [...]`: runs bench/<area>.bench.ts, each of which exports
 * `run(args)` and prints what it measured. Without an area it lists the benchmarks.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((file) => file.endsWith('.bench.ts'))
  .map((file) => file.replace(/\.bench\.ts$/, ''))
  .sort();

const [area, ...rest] = process.argv.slice(2);
if (!area || !available.includes(area)) {
  console.log(`usage: npm run bench -- <${available.join('|') || 'area'}> [options]`);
  process.exitCode = area ? 2 : 0;
} else {
  const module = (await import(path.join(here, `${area}.bench.ts`))) as { run(args: string[]): Promise<void> };
  await module.run(rest);
}
