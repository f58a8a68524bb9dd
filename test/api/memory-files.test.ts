import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FileBlobStore, type FileObject } from '../../src/index.js';
import { everyFormat, txtFixture, type Fixture } from '../providers/documents/document-fixtures.js';
import { ISO_MS_Z, TRANSPORTS, bearer, expectApiError, expectErrorResponse, openWorld, type TestAgent, type World } from '../support/transports.js';

let fixtures: Fixture[] = [];
beforeAll(async () => {
  fixtures = await everyFormat();
});

const upload = (agent: TestAgent, fixture: Pick<Fixture, 'filename' | 'contentType' | 'bytes'>, idempotencyKey?: string) =>
  agent.client.memory.uploadFile({ filename: fixture.filename, content_type: fixture.contentType, data: fixture.bytes }, idempotencyKey === undefined ? {} : { idempotencyKey });

/** A multipart body built by hand, for requests a client library would not send. */
function multipart(parts: Array<{ name: string; filename?: string; type?: string; content: string }>): { body: string; headers: Record<string, string> } {
  const boundary = '----memory-test-boundary';
  const body = parts
    .map((part) => {
      const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
      return `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.type ? `Content-Type: ${part.type}\r\n` : ''}\r\n${part.content}\r\n`;
    })
    .join('');
  return { body: `${body}--${boundary}--\r\n`, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe.each(TRANSPORTS)('memory files (%s)', (kind) => {
  let world: World;
  let alice: TestAgent;
  let bob: TestAgent;

  beforeEach(async () => {
    world = await openWorld(kind);
    alice = await world.newAgent('alice');
    bob = await world.newAgent('bob');
  });
  afterEach(() => world.close());

  describe('POST /v1/memory/files', () => {
    it('indexes PDF, DOCX, XLSX, CSV, TXT and MD: a phrase only in each file is found with the file metadata', async () => {
      const uploaded = new Map<string, FileObject>();
      for (const fixture of fixtures) uploaded.set(fixture.phrase, await upload(alice, fixture));
      for (const fixture of fixtures) {
        const file = uploaded.get(fixture.phrase)!;
        expect(file, fixture.filename).toEqual({
          file_id: expect.stringMatching(/^file_/),
          name: fixture.filename,
          size: fixture.bytes.byteLength,
          url: `${world.runtime.config.filesUrl}/files/${file.file_id}`,
          indexed: true,
          created_at: expect.stringMatching(ISO_MS_Z),
        });
        const { memories } = await alice.client.memory.search({ query: fixture.phrase, limit: 3 });
        expect(memories[0]!.content.replace(/\s+/g, ' '), fixture.filename).toContain(fixture.phrase);
        expect(memories[0]!.metadata).toEqual({ source: 'file', file_id: file.file_id, file_name: fixture.filename, chunk_index: '0' });
      }
    });

    it('cuts a long document into overlapping chunks numbered by chunk_index', async () => {
      const paragraphs = Array.from({ length: 300 }, (_, i) => `Paragraph ${i} of the handbook covers routine procedure number ${i}.`);
      paragraphs.push('The emergency exit code is amber walrus seven.');
      const file = await upload(alice, { filename: 'handbook.txt', contentType: 'text/plain', bytes: new TextEncoder().encode(paragraphs.join('\n')) });
      expect(file.indexed).toBe(true);
      const { memories } = await alice.client.memory.search({ query: 'emergency exit code amber walrus', limit: 50, metadata_filter: { file_id: file.file_id } });
      const indexes = memories.map((memory) => Number(memory.metadata.chunk_index)).sort((a, b) => a - b);
      expect(indexes.length).toBeGreaterThan(3);
      expect(indexes).toEqual(Array.from({ length: indexes.length }, (_, i) => i));
      expect(memories[0]!.content).toContain('amber walrus seven');
      expect(Number(memories[0]!.metadata.chunk_index)).toBe(indexes.length - 1);
    });

    it('stores other types without indexing them', async () => {
      const png = { filename: 'photo.png', contentType: 'image/png', bytes: Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]) };
      const file = await upload(alice, png);
      expect(file.indexed).toBe(false);
      expect(file.size).toBe(7);
      const { memories } = await alice.client.memory.search({ query: 'photo', metadata_filter: { file_id: file.file_id } });
      expect(memories).toEqual([]);
      expect((await alice.client.memory.downloadFile(file.file_id)).bytes).toEqual(png.bytes);
    });

    it('goes by the extension when the client sends no content type, and stores an unreadable document unindexed', async () => {
      const text = await alice.client.memory.uploadFile({ filename: 'plain.txt', data: new TextEncoder().encode('Mauve pelicans audit the lighthouse') });
      expect(text.indexed).toBe(true);
      expect((await alice.client.memory.downloadFile(text.file_id)).content_type).toBe('text/plain');
      const broken = await alice.client.memory.uploadFile({ filename: 'broken.pdf', data: new TextEncoder().encode('not really a pdf') });
      expect(broken.indexed).toBe(false);
      expect((await alice.client.memory.downloadFile(broken.file_id)).content_type).toBe('application/pdf');
    });

    it('answers a repeat with the same Idempotency-Key and bytes with the first file, and 409 for other bytes', async () => {
      const fixture = txtFixture('Idempotent ochre otters');
      const first = await upload(alice, fixture, 'upload-1');
      const again = await upload(alice, fixture, 'upload-1');
      expect(again).toEqual(first);
      expect((await alice.client.memory.listFiles()).total).toBe(1);
      await expectApiError(upload(alice, txtFixture('Different bytes'), 'upload-1'), 409, 'idempotency_conflict');
      expect((await alice.client.memory.listFiles()).total).toBe(1);
    });

    it('refuses a call without a key with 401', async () => {
      await expectApiError(world.anonymous.memory.uploadFile({ filename: 'a.txt', data: new Uint8Array([1]) }), 401, 'unauthorized');
    });
  });

  describe('GET {files_url}/files/{file_id}', () => {
    it('serves the bytes unchanged to the owner, and 404 to another agent and 401 without a key', async () => {
      const fixture = fixtures.find((candidate) => candidate.filename.endsWith('.pdf'))!;
      const file = await upload(alice, fixture);
      const download = await alice.client.memory.downloadFile(file.file_id);
      expect(download).toEqual({ content_type: 'application/pdf', filename: 'report.pdf', size: fixture.bytes.byteLength, bytes: fixture.bytes });
      await expectApiError(bob.client.memory.downloadFile(file.file_id), 404, 'not_found');
      await expectApiError(world.anonymous.memory.downloadFile(file.file_id), 401, 'unauthorized');
      await expectApiError(alice.client.memory.downloadFile('file_unknown'), 404, 'not_found');
      const raw = await world.raw(`/files/files/${file.file_id}`, { headers: bearer(alice.api_key) });
      expect(raw.status).toBe(200);
      expect(raw.headers.get('content-type')).toBe('application/pdf');
      expect(new Uint8Array(await raw.arrayBuffer())).toEqual(fixture.bytes);
    });
  });

  describe('GET /v1/memory/files', () => {
    it('lists newest first with cursor pagination and the total of all files', async () => {
      const created: FileObject[] = [];
      for (let i = 0; i < 5; i++) created.push(await upload(alice, { filename: `f${i}.txt`, contentType: 'text/plain', bytes: new TextEncoder().encode(`file ${i}`) }));
      await upload(bob, { filename: 'bob.txt', contentType: 'text/plain', bytes: new TextEncoder().encode('bob') });
      const first = await alice.client.memory.listFiles({ limit: 2 });
      expect(first.total).toBe(5);
      expect(first.files.map((file) => file.name)).toEqual(['f4.txt', 'f3.txt']);
      expect(first.next_cursor).toEqual(expect.any(String));
      const second = await alice.client.memory.listFiles({ limit: 2, cursor: first.next_cursor! });
      expect(second.files.map((file) => file.name)).toEqual(['f2.txt', 'f1.txt']);
      const third = await alice.client.memory.listFiles({ limit: 2, cursor: second.next_cursor! });
      expect(third.files.map((file) => file.name)).toEqual(['f0.txt']);
      expect(third.next_cursor).toBeNull();
      expect(third.total).toBe(5);
      expect(third.files[0]).toEqual(created[0]);
      const all = await alice.client.memory.listFiles();
      expect(all.files).toHaveLength(5);
      expect(all.next_cursor).toBeNull();
    });

    it.each([
      [{ limit: 0 }, 'limit'],
      [{ limit: 101 }, 'limit'],
      [{ cursor: 'not-a-cursor' }, 'cursor'],
    ])('refuses %o with 400 invalid_request', async (query, param) => {
      await expectApiError(alice.client.memory.listFiles(query), 400, 'invalid_request', param);
    });
  });
});

describe.each(TRANSPORTS)('memory uploads over the limit (%s)', (kind) => {
  let directory: string;
  let world: World;
  let alice: TestAgent;

  beforeEach(async () => {
    directory = mkdtempSync(path.join(tmpdir(), 'memory-upload-'));
    world = await openWorld(kind, { blobs: new FileBlobStore(directory), memory: { maxUploadBytes: 1000 } });
    alice = await world.newAgent('alice');
  });
  afterEach(async () => {
    await world.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('answers 413 payload_too_large past the configured limit and keeps nothing', async () => {
    const big = new TextEncoder().encode('x'.repeat(200_000));
    await expectApiError(alice.client.memory.uploadFile({ filename: 'big.txt', data: big }), 413, 'payload_too_large');
    expect(readdirSync(directory)).toEqual([]);
    expect((await alice.client.memory.listFiles()).total).toBe(0);
    expect((await alice.client.memory.search({ query: 'x' })).memories).toEqual([]);
    const events = (await world.sim.listEvents()).events.map((event) => event.type);
    expect(events).not.toContain('file.uploaded');
    // At the limit exactly is fine.
    const exact = await alice.client.memory.uploadFile({ filename: 'exact.txt', data: new Uint8Array(1000).fill(65) });
    expect(exact.size).toBe(1000);
    expect(readdirSync(directory)).toHaveLength(1);
  });
});

describe.each(['fetch', 'http'] as const)('memory uploads as raw multipart (%s)', (kind) => {
  let world: World;
  let alice: TestAgent;

  beforeEach(async () => {
    // Multipart framing does not depend on the embedder; the lexical one indexes the 3 MiB file
    // below in a fraction of the sentence encoder's seconds.
    world = await openWorld(kind, { memory: { embedder: 'lexical' } });
    alice = await world.newAgent('alice');
  });
  afterEach(() => world.close());

  it('answers 400 invalid_request on file when no part is named file', async () => {
    const { body, headers } = multipart([
      { name: 'other', filename: 'a.txt', type: 'text/plain', content: 'hello' },
      { name: 'file', content: 'a plain field, not a file' },
    ]);
    const response = await world.raw('/v1/memory/files', { method: 'POST', headers: { ...headers, ...bearer(alice.api_key) }, body });
    await expectErrorResponse(response, 400, 'invalid_request', 'file');
  });

  it('answers 415 unsupported_media_type for a JSON body (DECISIONS.md: a multipart route without multipart/form-data)', async () => {
    const response = await world.raw('/v1/memory/files', { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(alice.api_key) }, body: '{"file":"x"}' });
    await expectErrorResponse(response, 415, 'unsupported_media_type');
  });

  it('answers 401 before looking at the body', async () => {
    const response = await world.raw('/v1/memory/files', { method: 'POST', body: 'anything' });
    await expectErrorResponse(response, 401, 'unauthorized');
  });

  it('takes the part named file among others, marks replays with Idempotent-Replayed, and is not capped by the JSON body limit', async () => {
    const big = 'y'.repeat(3 * 1024 * 1024);
    const { body, headers } = multipart([
      { name: 'note', content: 'ignored field' },
      { name: 'file', filename: 'big.md', type: 'text/markdown', content: `# Big\nCerulean mongoose\n${big}` },
    ]);
    const send = () => world.raw('/v1/memory/files', { method: 'POST', headers: { ...headers, ...bearer(alice.api_key), 'idempotency-key': 'raw-1' }, body });
    const response = await send();
    expect(response.status).toBe(201);
    const file = (await response.json()) as FileObject;
    expect(file.name).toBe('big.md');
    expect(file.size).toBe(Buffer.byteLength(`# Big\nCerulean mongoose\n${big}`));
    const replay = await send();
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual(file);
  });
});

afterAll(() => undefined);
