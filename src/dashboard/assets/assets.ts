import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { CLIENT_SCRIPT } from './client-script.js';
import { STYLESHEET } from './stylesheet.js';

/** A static file of the dashboard. */
export interface Asset {
  contentType: string;
  body: string;
}

const require = createRequire(import.meta.url);

/** Loads each file once. */
const loaded = new Map<string, Promise<Asset>>();

/** The dashboard's static files by name (`htmx.min.js` straight from the installed `htmx.org` package). */
const SOURCES: Record<string, () => Promise<Asset>> = {
  'htmx.min.js': async () => ({ contentType: 'text/javascript; charset=utf-8', body: await readFile(require.resolve('htmx.org/dist/htmx.min.js'), 'utf8') }),
  'dashboard.js': async () => ({ contentType: 'text/javascript; charset=utf-8', body: CLIENT_SCRIPT }),
  'dashboard.css': async () => ({ contentType: 'text/css; charset=utf-8', body: STYLESHEET }),
};

/** The asset named `name`, or undefined. */
export function asset(name: string): Promise<Asset> | undefined {
  const source = Object.hasOwn(SOURCES, name) ? SOURCES[name] : undefined;
  if (!source) return undefined;
  let found = loaded.get(name);
  if (!found) loaded.set(name, (found = source()));
  return found;
}
