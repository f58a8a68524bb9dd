/**
 * The driver files a bubblewrap run executes (under `/.sandbox`, read-only, outside the agent's
 * tree): they pin time and randomness like the WebAssembly sandbox does, and the TypeScript one
 * refuses every module but the documented subset.
 */
import { PYTHON_MAIN } from './python-main.js';

/** Python: the shared `__sandbox_main` over `/.sandbox/main.py`, exiting with its code. */
export function pythonDriver(seed: number, nowSeconds: number): string {
  return `${PYTHON_MAIN}
import os
code = __sandbox_main(open('/.sandbox/main.py', encoding='utf-8').read(), ${seed}, ${nowSeconds})
os._exit(137 if code == -137 else code)
`;
}

/** Node preload: frozen Date, seeded Math.random and crypto, argv [] and the import allow-list. */
export function nodePreload(words: [number, number, number, number], nowMs: number): string {
  return String.raw`import { register } from 'node:module';
import { webcrypto } from 'node:crypto';
let a = ${words[0]} >>> 0, b = ${words[1]} >>> 0, c = ${words[2]} >>> 0, d = ${words[3]} >>> 0;
const next = () => { a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0; const t = (((a + b) | 0) + d) | 0; d = (d + 1) | 0; a = b ^ (b >>> 9); b = (c + (c << 3)) | 0; c = (c << 21) | (c >>> 11); c = (c + t) | 0; return t >>> 0; };
for (let i = 0; i < 12; i++) next();
Math.random = () => next() / 4294967296;
const fill = (array) => { const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength); for (let i = 0; i < bytes.length; i += 4) { let w = next(); for (let j = i; j < Math.min(i + 4, bytes.length); j++, w >>>= 8) bytes[j] = w & 255; } return array; };
webcrypto.getRandomValues = fill;
if (globalThis.crypto) globalThis.crypto.getRandomValues = fill;
const RealDate = Date;
globalThis.Date = class extends RealDate { constructor(...args) { if (args.length === 0) super(${nowMs}); else super(...args); } static now() { return ${nowMs}; } };
process.argv.length = 0;
for (const key of Object.keys(process.env)) delete process.env[key];
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(RESOLVE_HOOK)}));
`;
}

const RESOLVE_HOOK = `const ALLOWED = new Set(['node:fs', 'fs', 'node:fs/promises', 'fs/promises', 'node:path', 'path']);
export async function resolve(specifier, context, next) {
  if (context.parentURL && context.parentURL.startsWith('file:///.sandbox/main') && !ALLOWED.has(specifier)) {
    throw new Error("Cannot import '" + specifier + "': only node:fs, fs, node:fs/promises and node:path are available in the sandbox");
  }
  return next(specifier, context);
}`;
