import fc from 'fast-check';
import { check, checkEqual, expectError, expectOk } from '../assert.js';
import { checkProperty } from '../property.js';
import type { CheckDefinition } from '../types.js';

/** Base64 of bytes. */
function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Compute checks: the filesystem (round trips, normalisation, errors, isolation) and runs over it. */
export const COMPUTE_CHECKS: CheckDefinition[] = [
  {
    area: 'compute',
    name: 'files written are read back byte for byte at their normalised path',
    property: true,
    run: async (context) => {
      const owner = await context.agent();
      await checkProperty(
        context,
        fc.asyncProperty(fc.uint8Array({ maxLength: 4096 }), fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/), async (bytes, name) => {
          const written = await owner.client.compute.writeFs({ path: `/data/./tmp/../${name}.bin`, content: base64(bytes) });
          checkEqual([written.path, written.size], [`/data/${name}.bin`, bytes.length], 'path and size of the write');
          const read = await owner.client.compute.readFs({ path: `/data/${name}.bin` });
          checkEqual(read.content, base64(bytes), 'content read back (Base64)');
          const listing = await owner.client.compute.listFs({ path: '/data' });
          check(
            listing.entries.some((entry) => entry.name === `${name}.bin` && entry.type === 'file' && entry.size === bytes.length),
            `the listing of /data lacks ${name}.bin`,
          );
          const names = listing.entries.map((entry) => entry.name);
          checkEqual(names, [...names].sort(), 'listing order (by name)');
        }),
      );
    },
  },
  {
    area: 'compute',
    name: 'bad paths, missing files and file/directory clashes answer their codes, and nothing changes',
    run: async ({ agent }) => {
      const owner = await agent();
      await owner.client.compute.writeFs({ path: '/a/file.txt', content: base64(new TextEncoder().encode('x')) });
      await expectError('a relative path', owner.client.compute.readFs({ path: 'a/file.txt' }), 400, 'invalid_request', 'path');
      await expectError('a path above /', owner.client.compute.readFs({ path: '/../etc/passwd' }), 400, 'invalid_request', 'path');
      await expectError('a missing file', owner.client.compute.readFs({ path: '/a/missing.txt' }), 404, 'not_found');
      await expectError('a file where a directory is', owner.client.compute.writeFs({ path: '/a', content: '' }), 409, 'conflict');
      await expectError('a file under a file', owner.client.compute.writeFs({ path: '/a/file.txt/inner', content: '' }), 409, 'conflict');
      checkEqual((await owner.client.compute.readFs({ path: '/a/file.txt' })).content, base64(new TextEncoder().encode('x')), 'the file after the refused writes');
      await expectOk('deleting a directory', owner.client.compute.deleteFs({ path: '/a' }));
      await expectError('the file after its directory was deleted', owner.client.compute.readFs({ path: '/a/file.txt' }), 404, 'not_found');
    },
  },
  {
    area: 'compute',
    name: "an agent never sees another agent's files",
    run: async ({ agent }) => {
      const owner = await agent();
      const other = await agent();
      await owner.client.compute.writeFs({ path: '/secret/key.txt', content: base64(new TextEncoder().encode('hunter2')) });
      await expectError("another agent's file", other.client.compute.readFs({ path: '/secret/key.txt' }), 404, 'not_found');
      const run = await other.client.compute.run({ runtime: 'bash', code: 'cat /secret/key.txt; echo done' });
      check(!run.stdout.includes('hunter2'), "a run read another agent's file");
    },
  },
  {
    area: 'compute',
    name: 'a bash run sees the filesystem, keeps its writes and reports its exit code',
    run: async ({ agent }) => {
      const owner = await agent();
      await owner.client.compute.writeFs({ path: '/home/agent/in.txt', content: base64(new TextEncoder().encode('b\na\nc\n')) });
      const sorted = await owner.client.compute.run({ runtime: 'bash', code: 'sort in.txt > out.txt; cat out.txt' });
      checkEqual([sorted.stdout, sorted.exit_code], ['a\nb\nc\n', 0], 'stdout and exit_code of sort');
      checkEqual((await owner.client.compute.readFs({ path: '/home/agent/out.txt' })).content, base64(new TextEncoder().encode('a\nb\nc\n')), 'the file the run wrote');
      checkEqual((await owner.client.compute.run({ runtime: 'bash', code: 'echo oops >&2; exit 3' })).exit_code, 3, 'exit_code of exit 3');
      await expectError('a timeout of 301 s', owner.client.compute.run({ runtime: 'bash', code: 'true', timeout_seconds: 301 }), 400, 'invalid_request', 'timeout_seconds');
      await expectError('an unknown runtime', owner.client.compute.run({ runtime: 'cobol' as 'bash', code: 'x' }), 400, 'invalid_request', 'runtime');
    },
  },
];
