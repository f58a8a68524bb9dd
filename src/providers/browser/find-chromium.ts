import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** Where Debian and most distributions install Chromium. */
const WELL_KNOWN = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/**
 * The Chromium binary to use: the configured path when given (it must be executable), else
 * `CHROMIUM_PATH`, Debian's `/usr/bin/chromium`, or `chromium` on PATH. Never a downloaded build.
 * Undefined when none is found.
 */
export function findChromium(configured?: string): string | undefined {
  if (configured !== undefined) return executable(configured) ? configured : undefined;
  const fromEnv = process.env.CHROMIUM_PATH;
  const candidates = [...(fromEnv ? [fromEnv] : []), ...WELL_KNOWN];
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    candidates.push(path.join(dir, 'chromium'), path.join(dir, 'chromium-browser'));
  }
  return candidates.find(executable);
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
