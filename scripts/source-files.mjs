// Lists the TypeScript files under a directory (shared by the check scripts).
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** Every .ts file below `dir`, as paths relative to the working directory. */
export function sourceFiles(dir) {
  const found = [];
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) found.push(...sourceFiles(full));
    else if (full.endsWith('.ts') && !full.endsWith('.d.ts')) found.push(full);
  }
  return found.sort();
}
