import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAW_TRANSPORTS, bearer, expectErrorResponse, jsonInit, openRawWorld, type TestAgent, type World } from '../support/transports.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe.each(RAW_TRANSPORTS)('compute filesystem over %s', (kind) => {
  let world: World;
  let alice: TestAgent;
  let bob: TestAgent;
  const call = (agent: TestAgent, method: string, path: string, body?: unknown) => world.raw(path, jsonInit(method, body, bearer(agent.api_key)));
  const put = (agent: TestAgent, path: string, text: string) => call(agent, 'PUT', '/v1/compute/fs', { path, content: b64(text) });

  beforeAll(async () => {
    world = await openRawWorld(kind, { compute: { quotaBytes: 1000, maxWriteBytes: 600 } });
    alice = await world.newAgent('alice');
    bob = await world.newAgent('bob');
  });
  afterAll(() => world.close());

  it('writes a file, creating missing directories, and reads it back as Base64', async () => {
    const written = await put(alice, '/proj/./src/../notes/a.txt', 'hello');
    expect(written.status).toBe(200);
    const body = (await written.json()) as { path: string; size: number; modified_at: string };
    expect(body).toMatchObject({ path: '/proj/notes/a.txt', size: 5 });
    expect(body.modified_at).toMatch(/Z$/);
    const read = await call(alice, 'GET', '/v1/compute/fs/content?path=/proj/notes/a.txt');
    expect(await read.json()).toEqual({ path: '/proj/notes/a.txt', content: b64('hello'), size: 5 });
  });

  it('lists a directory sorted by name with the entry fields', async () => {
    await put(alice, '/proj/b.txt', 'bb');
    const listing = (await (await call(alice, 'GET', '/v1/compute/fs?path=/proj')).json()) as { path: string; entries: Array<{ name: string; path: string; type: string; size: number; modified_at: string }> };
    expect(listing.path).toBe('/proj');
    expect(listing.entries.map((e) => [e.name, e.path, e.type, e.size])).toEqual([
      ['b.txt', '/proj/b.txt', 'file', 2],
      ['notes', '/proj/notes', 'directory', 0],
    ]);
    const root = (await (await call(alice, 'GET', '/v1/compute/fs')).json()) as { path: string; entries: Array<{ name: string }> };
    expect(root.path).toBe('/');
    expect(root.entries.map((e) => e.name)).toContain('proj');
  });

  it('overwrites a file and counts the quota by what is kept', async () => {
    await put(alice, '/over.txt', 'x'.repeat(100));
    const again = await put(alice, '/over.txt', 'y'.repeat(10));
    expect(((await again.json()) as { size: number }).size).toBe(10);
  });

  it('refuses bad paths with 400 invalid_request param path', async () => {
    for (const path of ['relative.txt', '/../up', '/a/\u0000b', '/' + 'n'.repeat(256), '/' + 'a/'.repeat(2100)]) {
      await expectErrorResponse(await put(alice, path, 'x'), 400, 'invalid_request', 'path');
    }
    await expectErrorResponse(await call(alice, 'GET', '/v1/compute/fs?path=..'), 400, 'invalid_request', 'path');
  });

  it('answers 404 for a missing path and never shows another agent its files', async () => {
    await expectErrorResponse(await call(alice, 'GET', '/v1/compute/fs/content?path=/nope'), 404, 'not_found');
    await expectErrorResponse(await call(bob, 'GET', '/v1/compute/fs/content?path=/proj/b.txt'), 404, 'not_found');
    await expectErrorResponse(await call(bob, 'GET', '/v1/compute/fs?path=/proj'), 404, 'not_found');
    await expectErrorResponse(await call(alice, 'DELETE', '/v1/compute/fs?path=/nope'), 404, 'not_found');
  });

  it('answers 409 conflict for a file where a directory is and the reverse', async () => {
    await expectErrorResponse(await put(alice, '/proj', 'x'), 409, 'conflict', 'path');
    await expectErrorResponse(await put(alice, '/proj/b.txt/inner', 'x'), 409, 'conflict', 'path');
    await expectErrorResponse(await call(alice, 'GET', '/v1/compute/fs?path=/proj/b.txt'), 409, 'conflict');
  });

  it('refuses a write over the write limit with 413 payload_too_large and past the quota with 413 quota_exceeded, changing nothing', async () => {
    await expectErrorResponse(await put(alice, '/big/file', 'z'.repeat(601)), 413, 'payload_too_large');
    expect((await put(alice, '/q/file', 'z'.repeat(590))).status).toBe(200);
    const before = await (await call(alice, 'GET', '/v1/compute/fs')).json();
    await expectErrorResponse(await put(alice, '/q2/file', 'z'.repeat(500)), 413, 'quota_exceeded');
    expect(await (await call(alice, 'GET', '/v1/compute/fs')).json()).toEqual(before);
    await expectErrorResponse(await call(alice, 'GET', '/v1/compute/fs?path=/big'), 404, 'not_found');
  });

  it('refuses content that is not Base64', async () => {
    await expectErrorResponse(await call(alice, 'PUT', '/v1/compute/fs', { path: '/x', content: 'not base64!' }), 400, 'invalid_request', 'content');
  });

  it('deletes a directory with everything in it (204)', async () => {
    const deleted = await call(alice, 'DELETE', '/v1/compute/fs?path=/proj');
    expect(deleted.status).toBe(204);
    await expectErrorResponse(await call(alice, 'GET', '/v1/compute/fs/content?path=/proj/notes/a.txt'), 404, 'not_found');
    const root = (await (await call(alice, 'GET', '/v1/compute/fs')).json()) as { entries: Array<{ name: string }> };
    expect(root.entries.map((e) => e.name)).not.toContain('proj');
  });

  it('carries the tree through a snapshot and a restore', async () => {
    await put(bob, '/keep/me.txt', 'kept');
    const snapshot = await (await world.raw('/_sim/snapshot')).text();
    await call(bob, 'DELETE', '/v1/compute/fs?path=/keep');
    const restored = await world.raw('/_sim/restore', { method: 'POST', headers: { 'content-type': 'application/json' }, body: snapshot });
    expect(restored.status).toBe(204);
    expect(await (await call(bob, 'GET', '/v1/compute/fs/content?path=/keep/me.txt')).json()).toMatchObject({ content: b64('kept') });
  });
});

describe('compute filesystem: large writes', () => {
  it('writes and reads back a 24 MB file (Base64 checked without a regular expression)', async () => {
    const world = await openRawWorld('fetch');
    try {
      const agent = await world.newAgent('big');
      const bytes = Buffer.alloc(24 * 1024 * 1024, 3);
      const put = await world.raw('/v1/compute/fs', jsonInit('PUT', { path: '/big.bin', content: bytes.toString('base64') }, bearer(agent.api_key)));
      expect(put.status).toBe(200);
      const got = (await (await world.raw('/v1/compute/fs/content?path=/big.bin', jsonInit('GET', undefined, bearer(agent.api_key)))).json()) as { size: number; content: string };
      expect(got.size).toBe(bytes.length);
      expect(Buffer.from(got.content, 'base64').equals(bytes)).toBe(true);
    } finally {
      await world.close();
    }
  });
});
