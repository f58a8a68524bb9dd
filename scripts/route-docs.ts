/**
 * Keeps each route table entry's JSDoc equal to its route's summary, so the derived clients
 * (`client.wallet.send`, `sim.fundWallet`) show the endpoint's documentation in editors: a mapped
 * type keeps the JSDoc of the property it maps, and TypeScript cannot read it from a string value.
 *
 *   tsx scripts/route-docs.ts          fails listing every entry whose JSDoc is missing or stale
 *   tsx scripts/route-docs.ts --write  rewrites those JSDoc blocks from the summaries
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ADMIN_ROUTE_TABLE, AGENT_ROUTE_TABLES, SIM_ROUTE_TABLES } from '../src/runtime/clients.js';
import type { RouteTable } from '../src/core/api/route-client.js';

const root = new URL('..', import.meta.url).pathname;
const write = process.argv.includes('--write');

const docs = new Map<string, string>();
for (const table of [...Object.values(AGENT_ROUTE_TABLES), ...SIM_ROUTE_TABLES, ADMIN_ROUTE_TABLE] as RouteTable[]) {
  for (const route of Object.values(table)) docs.set(route.id, `${route.summary} \`${route.method} ${route.path}\``);
}

function routeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(path);
    return entry.name.endsWith('.routes.ts') ? [path] : [];
  });
}

/** A table entry, with the JSDoc block right above it if there is one. */
const ENTRY = /^([ \t]*)(\/\*\*(?:[^*]|\*(?!\/))*\*\/\n[ \t]*)?(\w+): defineRoute\(\{\s*id: '([^']+)'/gm;

const stale: string[] = [];
const seen = new Set<string>();
for (const file of routeFiles(join(root, 'src'))) {
  const source = readFileSync(file, 'utf8');
  const next = source.replace(ENTRY, (whole, indent: string, block: string | undefined, _key: string, id: string) => {
    seen.add(id);
    const summary = docs.get(id);
    if (summary === undefined) return whole;
    const wanted = `/** ${summary.replaceAll('*/', '*\\/')} */\n${indent}`;
    if (block === wanted) return whole;
    stale.push(`${relative(root, file)}: ${id}`);
    return `${indent}${wanted}${whole.slice(indent.length + (block?.length ?? 0))}`;
  });
  if (write && next !== source) writeFileSync(file, next);
}

const missing = [...docs.keys()].filter((id) => !seen.has(id));
if (missing.length > 0) {
  process.stderr.write(`route docs: no table entry found in src/**/*.routes.ts for ${missing.join(', ')}\n`);
  process.exit(1);
}
if (stale.length > 0 && !write) {
  process.stderr.write(`route docs: ${stale.length} route table entries lack their summary as JSDoc (run \`npm run route-docs\`):\n  ${stale.join('\n  ')}\n`);
  process.exit(1);
}
process.stdout.write(`route docs: ok (${docs.size} routes${write && stale.length > 0 ? `, ${stale.length} rewritten` : ''})\n`);
