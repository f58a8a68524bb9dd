import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkScenario } from './define-scenario.js';
import type { ScenarioDefinition } from './scenario-types.js';

const TYPESCRIPT = new Set(['.ts', '.mts', '.cts', '.tsx']);
const JAVASCRIPT = new Set(['.js', '.mjs', '.cjs']);

/**
 * Imports a scenario module and answers its default export, checked. A `.js`/`.mjs` file is
 * imported as it is; a `.ts` file through tsx's API (a development dependency of a project
 * that writes scenarios in TypeScript).
 * @throws Error when the file is missing, of another kind, has no default export, or tsx is
 *   needed and not installed; TypeError/RangeError when the export is not a valid scenario
 */
export async function loadScenario(file: string): Promise<ScenarioDefinition> {
  const absolute = path.resolve(file);
  if (!existsSync(absolute)) throw new Error(`no such scenario file: ${file}`);
  const extension = path.extname(absolute).toLowerCase();
  const url = pathToFileURL(absolute).href;
  let loaded: { default?: unknown };
  if (TYPESCRIPT.has(extension)) {
    let tsImport: (specifier: string, parent: string) => Promise<{ default?: unknown }>;
    try {
      ({ tsImport } = (await import('tsx/esm/api')) as { tsImport: typeof tsImport });
    } catch {
      throw new Error(`${file} is TypeScript: install tsx (npm install --save-dev tsx) or compile it to .js`);
    }
    loaded = await tsImport(url, import.meta.url);
  } else if (JAVASCRIPT.has(extension)) {
    loaded = (await import(url)) as { default?: unknown };
  } else {
    throw new Error(`${file}: a scenario is a .ts, .mts, .js or .mjs module`);
  }
  // A CommonJS build puts the module's exports under `default` once more.
  let scenario = loaded.default;
  if (scenario !== null && typeof scenario === 'object' && 'default' in scenario && !('name' in scenario)) scenario = (scenario as { default: unknown }).default;
  if (scenario === undefined) throw new Error(`${file} has no default export: end it with export default defineScenario({...})`);
  checkScenario(scenario);
  return scenario;
}
