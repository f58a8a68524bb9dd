import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Every .ts file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('mailauth on this Node', () => {
  it(`loads the four modules the service uses, and the tools they share (Node ${process.versions.node}; the package entry needs Node 22)`, async () => {
    const [sign, verify, spf, dmarc, tools] = await Promise.all([
      import('mailauth/lib/dkim/sign.js'),
      import('mailauth/lib/dkim/verify.js'),
      import('mailauth/lib/spf/index.js'),
      import('mailauth/lib/dmarc/index.js'),
      import('mailauth/lib/tools.js'),
    ]);
    expect(typeof tools.parseHeaders).toBe('function');
    expect(typeof tools.formatAuthHeaderRow).toBe('function');
    expect(typeof sign.DkimSignStream).toBe('function');
    expect(typeof sign.dkimSign).toBe('function');
    expect(typeof verify.dkimVerify).toBe('function');
    expect(typeof spf.spf).toBe('function');
    expect(typeof dmarc.evaluateDmarc).toBe('function');
  });

  it('is imported by its modules only, never by its package entry', () => {
    const root = new URL('../../../../src/', import.meta.url).pathname;
    const imports = sources(root).flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/from '(mailauth[^']*)'/g)].map((match) => match[1]!));
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((spec) => !/^mailauth\/lib\/(dkim\/sign|dkim\/verify|spf\/index|dmarc\/index|tools)\.js$/.test(spec))).toEqual([]);
  });
});
