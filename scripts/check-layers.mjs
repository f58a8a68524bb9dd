// Layer and cycle check (DESIGN.md): imports point one way, cli/http/smtp -> runtime -> core <- sim,
// providers, and no module imports itself through a cycle. TypeScript 7 ships no compiler API for
// tools such as madge or dependency-cruiser to parse with, so imports are read with a pattern
// that covers every form this codebase uses (static, type-only, re-export, dynamic).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sourceFiles } from './source-files.mjs';

const ALLOWED = {
  core: ['core'],
  sim: ['core', 'sim'],
  providers: ['core', 'providers'],
  runtime: ['core', 'sim', 'providers', 'runtime'],
  http: ['core', 'runtime', 'http'],
  smtp: ['core', 'runtime', 'smtp'],
  mcp: ['core', 'runtime', 'http', 'index', 'mcp'],
  dashboard: ['core', 'runtime', 'dashboard'],
  testing: ['core', 'runtime', 'http', 'providers', 'index', 'testing'],
  cli: ['core', 'runtime', 'http', 'smtp', 'providers', 'mcp', 'cli', 'index', 'scenario', 'conformance'],
  conformance: ['core', 'conformance', 'http', 'runtime', 'index'],
  index: ['core', 'sim', 'providers', 'runtime', 'http', 'smtp', 'mcp', 'dashboard', 'scenario'],
  scenario: ['core', 'sim', 'runtime', 'scenario'],
};
// Libraries core and sim may use: pure and deterministic (validation, parsing, hashing, DI).
// Anything with I/O, native or WebAssembly state (tokenizers, indexes, mail, HTTP) sits behind a
// port in providers.
const PURE_LIBRARIES = new Set(['zod', 'inversify', 'reflect-metadata', 'canonicalize', '@noble/hashes', '@scure/base', 'ibantools', 'node:crypto', 'libphonenumber-js', 'fast-xml-parser']);
const packageOf = (spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);

const IMPORT = /(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

const layerOf = (file) => {
  const rel = path.relative('src', file);
  return rel === 'index.ts' ? 'index' : rel.split(path.sep)[0];
};

// Inside core: shared holds pure helpers (no ports, no services), ports are interfaces over
// shared helpers and schemas, and an area reaches another area only through its schemas or a
// port, never through its handlers or routes.
const AREA_INTERNALS = /\.(handlers|routes)\.ts$/;
const coreFolderOf = (file) => {
  const rel = path.relative(path.join('src', 'core'), file);
  return rel.startsWith('..') || !rel.includes(path.sep) ? undefined : rel.split(path.sep)[0];
};
const CORE_INFRASTRUCTURE = new Set(['api', 'shared', 'ports', 'services', 'control']);
function coreEdgeProblem(file, target) {
  const from = coreFolderOf(file);
  const to = coreFolderOf(target);
  if (from === undefined || to === undefined || from === to) return undefined;
  if (from === 'shared' && (to === 'ports' || to === 'services')) return `core/shared holds pure helpers and must not import core/${to}`;
  if (from === 'ports' && to !== 'shared' && !target.endsWith('.schema.ts')) return `a port may import only core/shared and schemas, not core/${to}`;
  if (!CORE_INFRASTRUCTURE.has(from) && !CORE_INFRASTRUCTURE.has(to) && AREA_INTERNALS.test(target)) {
    return `area ${from} must not import area ${to}'s ${path.basename(target)} (go through a port or a schema)`;
  }
  return undefined;
}

// The runtime composes providers but never tells them apart by class: a provider that needs
// something of the runtime (an edge for its callbacks) offers it through its port.
const NAMED_IMPORT = /import\s+(?!type\b)\{([^}]*)\}\s*from\s*['"]([^'"]+)['"]/g;
function providerClassChecks(file, text) {
  if (layerOf(file) !== 'runtime') return [];
  const names = [];
  for (const match of text.matchAll(NAMED_IMPORT)) {
    const target = path.normalize(path.join(path.dirname(file), match[2].replace(/\.js$/, '.ts')));
    if (!match[2].startsWith('.') || layerOf(target) !== 'providers') continue;
    for (const part of match[1].split(',')) {
      const name = part
        .replace(/^\s*type\s+/, '')
        .split(/\s+as\s+/)
        .at(-1)
        .trim();
      if (name && !part.trim().startsWith('type ')) names.push(name);
    }
  }
  return names.filter((name) => new RegExp(`instanceof\\s+${name}\\b`).test(text)).map((name) => `${file}: the runtime must not tell providers apart by class (instanceof ${name}); let the port offer what is needed`);
}

const files = sourceFiles('src');
const graph = new Map();
const problems = [];
for (const file of files) {
  const edges = [];
  const text = readFileSync(file, 'utf8');
  problems.push(...providerClassChecks(file, text));
  for (const match of text.matchAll(IMPORT)) {
    const spec = match[1] ?? match[2];
    if (!spec.startsWith('.')) {
      const layer = layerOf(file);
      if ((layer === 'core' || layer === 'sim') && !PURE_LIBRARIES.has(packageOf(spec))) {
        problems.push(`${file}: layer ${layer} may only use pure libraries, not ${spec} (put it behind a port in providers)`);
      }
      continue;
    }
    const target = path.normalize(path.join(path.dirname(file), spec.replace(/\.js$/, '.ts')));
    edges.push(target);
    const from = layerOf(file);
    const to = layerOf(target);
    if (!(ALLOWED[from] ?? []).includes(to)) problems.push(`${file}: layer ${from} must not import ${to} (${spec})`);
    const problem = coreEdgeProblem(file, target);
    if (problem) problems.push(`${file}: ${problem} (${spec})`);
  }
  graph.set(file, edges);
}

// Cycles: depth-first search with colours; report each back edge's cycle once.
const state = new Map();
const stack = [];
const visit = (file) => {
  state.set(file, 'active');
  stack.push(file);
  for (const next of graph.get(file) ?? []) {
    if (state.get(next) === 'active') problems.push(`import cycle: ${[...stack.slice(stack.indexOf(next)), next].join(' -> ')}`);
    else if (!state.has(next) && graph.has(next)) visit(next);
  }
  stack.pop();
  state.set(file, 'done');
};
for (const file of files) if (!state.has(file)) visit(file);

if (problems.length > 0) {
  console.error(`layer check: ${problems.length} problem(s)\n${problems.join('\n')}`);
  process.exit(1);
}
console.log(`layer check: ok (${files.length} modules, no cycles)`);
