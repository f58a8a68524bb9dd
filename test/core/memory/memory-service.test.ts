import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileBlobStore, HashingEmbedder, JsonFilePersistence, canonicalJson, createRuntime, sha256Hex, type AgentClient, type Embedder, type Runtime, type RuntimeOptions } from '../../../src/index.js';

async function agentOf(runtime: Runtime, name: string): Promise<AgentClient> {
  const { api_key } = await runtime.createAgent({ name });
  return runtime.agent(api_key);
}

const text = (value: string) => new TextEncoder().encode(value);

describe('memory persistence', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(path.join(tmpdir(), 'memory-persist-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  const options = (): RuntimeOptions => ({
    seed: 9,
    persistence: new JsonFilePersistence(path.join(directory, 'state.json')),
    blobs: new FileBlobStore(path.join(directory, 'state.json.blobs')),
  });

  it('keeps memories, files and their index across a restart with --data', async () => {
    const first = await createRuntime(options());
    const { api_key } = await first.createAgent({ name: 'keeper' });
    const before = first.agent(api_key);
    const kept = await before.memory.create({ content: 'The boat is moored at pier seven', metadata: { place: 'harbour' } });
    const gone = await before.memory.create({ content: 'The boat used to be at pier two' });
    await before.memory.delete(gone.memory_id);
    const file = await before.memory.uploadFile({ filename: 'log.md', data: text('# Log\nThe lighthouse keeper counts gulls at dawn') });
    await first.close();

    const second = await createRuntime(options());
    const after = second.agent(api_key);
    const boat = await after.memory.search({ query: 'where is the boat moored', limit: 5 });
    expect(boat.memories.map((memory) => memory.id)).toContain(kept.memory_id);
    expect(boat.memories.map((memory) => memory.id)).not.toContain(gone.memory_id);
    expect(boat.memories.find((memory) => memory.id === kept.memory_id)!.metadata).toEqual({ place: 'harbour' });
    const gulls = await after.memory.search({ query: 'lighthouse keeper gulls', limit: 1 });
    expect(gulls.memories[0]!.metadata.file_id).toBe(file.file_id);
    expect(new TextDecoder().decode((await after.memory.downloadFile(file.file_id)).bytes)).toBe('# Log\nThe lighthouse keeper counts gulls at dawn');
    expect((await after.memory.listFiles()).files).toEqual([file]);
    await second.close();
  });
});

describe('memory and snapshots', () => {
  it('rebuilds the index after a restore: state after the snapshot is undone in search too', async () => {
    const runtime = await createRuntime({ seed: 4 });
    const agent = await agentOf(runtime, 'snap');
    const early = await agent.memory.create({ content: 'early note about apricots' });
    await agent.memory.search({ query: 'apricots' }); // builds the index
    const snapshot = await runtime.sim.snapshot();
    const late = await agent.memory.create({ content: 'late note about apricots' });
    await agent.memory.delete(early.memory_id);
    expect((await agent.memory.search({ query: 'apricots' })).memories.map((memory) => memory.id)).toEqual([late.memory_id]);
    await runtime.sim.restore(snapshot);
    expect((await agent.memory.search({ query: 'apricots' })).memories.map((memory) => memory.id)).toEqual([early.memory_id]);
  });

  it('restores into a fresh runtime and finds the same memories with the same scores', async () => {
    const source = await createRuntime({ seed: 5 });
    const { api_key } = await source.createAgent({ name: 'mover' });
    for (const content of ['red kites circle the valley', 'blue whales sing in winter', 'green tea with jasmine']) await source.agent(api_key).memory.create({ content });
    const before = await source.agent(api_key).memory.search({ query: 'whales singing' });
    const target = await createRuntime({ seed: 5 });
    await target.sim.restore(JSON.parse(JSON.stringify(await source.sim.snapshot())));
    const after = await target.agent(api_key).memory.search({ query: 'whales singing' });
    expect(after).toEqual(before);
    expect(after.memories[0]!.content).toBe('blue whales sing in winter');
  });

  it('embeds again memories whose vectors came from another embedder', async () => {
    const small = await createRuntime({ seed: 6, providers: { embedder: new HashingEmbedder(64) } });
    const { api_key } = await small.createAgent({ name: 'switcher' });
    await small.agent(api_key).memory.create({ content: 'the orchard has forty pear trees' });
    await small.agent(api_key).memory.create({ content: 'invoices are sent on Fridays' });
    const calls: string[][] = [];
    const counting: Embedder = {
      model: new HashingEmbedder(128).model,
      embed: async (texts) => {
        calls.push([...texts]);
        return new HashingEmbedder(128).embed(texts);
      },
    };
    const large = await createRuntime({ seed: 6, providers: { embedder: counting } });
    await large.sim.restore(await small.sim.snapshot());
    const { memories } = await large.agent(api_key).memory.search({ query: 'pear orchard' });
    expect(memories[0]!.content).toBe('the orchard has forty pear trees');
    expect(calls.flat()).toEqual(expect.arrayContaining(['the orchard has forty pear trees', 'invoices are sent on Fridays']));
    const stored = (await large.sim.snapshot()).store.collections.memories!.rows.map((row) => (row[3] as { embedding_model: string }).embedding_model);
    expect(new Set(stored)).toEqual(new Set(['hashing-porter-v1/128']));
  });

  it('embeds memories of a hand-written snapshot that carry no vector', async () => {
    const runtime = await createRuntime({ seed: 7 });
    const agent = await agentOf(runtime, 'handmade');
    const created = await agent.memory.create({ content: 'placeholder' });
    const snapshot = structuredClone(await runtime.sim.snapshot());
    const row = snapshot.store.collections.memories!.rows[0]!;
    row[3] = { ...(row[3] as object), content: 'the violin needs new strings', vector: undefined, embedding_model: undefined };
    await runtime.sim.restore(JSON.parse(JSON.stringify(snapshot)));
    const { memories } = await agent.memory.search({ query: 'violin strings' });
    expect(memories[0]).toMatchObject({ id: created.memory_id, content: 'the violin needs new strings' });
    expect(memories[0]!.score).toBeGreaterThan(0.5);
  });

  it('embeds again a memory whose stored vector is unreadable, instead of leaving it out of search', async () => {
    const runtime = await createRuntime({ seed: 8 });
    const agent = await agentOf(runtime, 'mended');
    const created = await agent.memory.create({ content: 'the kettle whistles at noon' });
    const snapshot = structuredClone(await runtime.sim.snapshot());
    const row = snapshot.store.collections.memories!.rows[0]!;
    row[3] = { ...(row[3] as object), vector: 'AAA' };
    await runtime.sim.restore(JSON.parse(JSON.stringify(snapshot)));
    const { memories } = await agent.memory.search({ query: 'kettle whistles' });
    expect(memories.map((memory) => memory.id)).toEqual([created.memory_id]);
    expect(((await runtime.sim.snapshot()).store.collections.memories!.rows[0]![3] as { vector: string }).vector).not.toBe('AAA');
  });
});

describe('memory errors', () => {
  it('keeps nothing of an upload whose indexing fails: no file, no memories, no events', async () => {
    const failing: Embedder = {
      model: new HashingEmbedder().model,
      embed: async (texts) => {
        if (texts.some((text) => text.includes('explode'))) throw new Error('embedding provider down');
        return new HashingEmbedder().embed(texts);
      },
    };
    const runtime = await createRuntime({ providers: { embedder: failing } });
    const agent = await agentOf(runtime, 'unlucky');
    await expect(agent.memory.uploadFile({ filename: 'notes.txt', data: text('the boiler will explode on Monday') })).rejects.toMatchObject({ status: 500, code: 'internal_error' });
    expect((await agent.memory.listFiles()).total).toBe(0);
    expect((await agent.memory.search({ query: 'boiler Monday' })).memories).toEqual([]);
    expect((await runtime.sim.events(0, 100)).events.map((event) => event.type).filter((type) => /^(memory|file)\./.test(type))).toEqual([]);
    // The same runtime still takes uploads.
    expect((await agent.memory.uploadFile({ filename: 'ok.txt', data: text('the boiler was serviced') })).indexed).toBe(true);
  });
});

describe('memory determinism', () => {
  it('gives the same state, byte for byte, for the same seed and calls', async () => {
    const run = async () => {
      const runtime = await createRuntime({ seed: 11 });
      const agent = await agentOf(runtime, 'twin');
      await agent.memory.create({ content: 'same input, same vectors', metadata: { a: 'b' } });
      await agent.memory.uploadFile({ filename: 'a.csv', data: text('name,city\nAda,London\n') });
      await agent.memory.search({ query: 'London' });
      return sha256Hex(canonicalJson(await runtime.sim.snapshot()));
    };
    expect(await run()).toBe(await run());
  });

  it('logs memory.created, memory.deleted, file.uploaded and file.indexed', async () => {
    const runtime = await createRuntime();
    const agent = await agentOf(runtime, 'logger');
    const memory = await agent.memory.create({ content: 'log me' });
    await agent.memory.delete(memory.memory_id);
    const file = await agent.memory.uploadFile({ filename: 'n.txt', data: text('indexed text') });
    await agent.memory.uploadFile({ filename: 'n.bin', data: text('stored only') });
    const events = (await runtime.sim.events(0, 100)).events.filter((event) => /^(memory|file)\./.test(event.type));
    expect(events.map((event) => [event.type, event.data])).toEqual([
      ['memory.created', { memory_id: memory.memory_id }],
      ['memory.deleted', { memory_id: memory.memory_id }],
      ['file.uploaded', { file_id: file.file_id, name: 'n.txt', size: 12 }],
      ['file.indexed', { file_id: file.file_id, chunks: 1 }],
      ['file.uploaded', { file_id: expect.stringMatching(/^file_/), name: 'n.bin', size: 11 }],
    ]);
  });
});

describe('memory with the HNSW index', () => {
  it('keeps filters, deletions and isolation exact when every index is a graph', async () => {
    const runtime = await createRuntime({ memory: { index: 'hnsw' } });
    const alice = await agentOf(runtime, 'alice');
    const bob = await agentOf(runtime, 'bob');
    const ids: string[] = [];
    for (let i = 0; i < 300; i++) ids.push((await alice.memory.create({ content: `shipment ${i} of oranges left the port`, metadata: { lane: i % 100 === 0 ? 'rare' : 'common' } })).memory_id);
    await bob.memory.create({ content: 'shipment of oranges left the port' });
    const rare = await alice.memory.search({ query: 'shipment of oranges', limit: 10, metadata_filter: { lane: 'rare' } });
    expect(rare.memories.map((memory) => memory.id).sort()).toEqual([ids[0], ids[100], ids[200]].sort());
    await alice.memory.delete(ids[100]!);
    const after = await alice.memory.search({ query: 'shipment of oranges', limit: 10, metadata_filter: { lane: 'rare' } });
    expect(after.memories.map((memory) => memory.id).sort()).toEqual([ids[0], ids[200]].sort());
    const all = await alice.memory.search({ query: 'shipment 100 of oranges', limit: 50 });
    expect(all.memories).toHaveLength(50);
    expect(all.memories.map((memory) => memory.id)).not.toContain(ids[100]);
    expect((await bob.memory.search({ query: 'oranges', limit: 50 })).memories).toHaveLength(1);
  });
});

describe('indexing a large document', () => {
  it('indexes at most maxChunksPerFile chunks and stops reading there', async () => {
    const runtime = await createRuntime({ memory: { maxChunksPerFile: 3, chunkTokens: 50, chunkOverlapTokens: 10 } });
    const agent = await agentOf(runtime, 'capped');
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i} tells of item ${i}`).join('\n');
    const file = await agent.memory.uploadFile({ filename: 'long.txt', data: text(lines) });
    expect(file.indexed).toBe(true);
    const { memories } = await agent.memory.search({ query: 'line item', limit: 50, metadata_filter: { file_id: file.file_id } });
    expect(memories.map((memory) => memory.metadata.chunk_index).sort()).toEqual(['0', '1', '2']);
    expect((await agent.memory.downloadFile(file.file_id)).bytes.byteLength).toBe(text(lines).byteLength);
  });
});
