import { get_encoding } from '@dqbd/tiktoken';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ISO_MS_Z, TRANSPORTS, expectApiError, jsonInit, bearer, openWorld, type TestAgent, type World } from '../support/transports.js';

const cl100k = get_encoding('cl100k_base');
/** A text of exactly `tokens` cl100k_base tokens. */
function textOfTokens(tokens: number): string {
  const text = `hello${' hello'.repeat(tokens - 1)}`;
  expect(cl100k.encode_ordinary(text).length).toBe(tokens);
  return text;
}

describe.each(TRANSPORTS)('memory (%s)', (kind) => {
  let world: World;
  let alice: TestAgent;
  let bob: TestAgent;

  beforeEach(async () => {
    world = await openWorld(kind);
    alice = await world.newAgent('alice');
    bob = await world.newAgent('bob');
  });
  afterEach(() => world.close());

  describe('POST /v1/memory', () => {
    it('answers 201 with exactly memory_id and created_at', async () => {
      const response = await world.raw('/v1/memory', jsonInit('POST', { content: 'Alice likes green tea', metadata: { topic: 'drinks' } }, bearer(alice.api_key)));
      expect(response.status).toBe(201);
      const body = (await response.json()) as Record<string, string>;
      expect(Object.keys(body).sort()).toEqual(['created_at', 'memory_id']);
      expect(body.memory_id).toMatch(/^mem_/);
      expect(body.created_at).toMatch(ISO_MS_Z);
    });

    it('accepts content of exactly 8,000 tokens and refuses 8,001 with 400 content_too_long on content', async () => {
      // The limit is counted in tokens whatever the embedder; the lexical one keeps this test from
      // spending seconds running the sentence encoder over 8,000 tokens.
      const lexical = await openWorld(kind, { memory: { embedder: 'lexical' } });
      try {
        const carol = await lexical.newAgent('carol');
        const created = await carol.client.memory.create({ content: textOfTokens(8000) });
        expect(created.memory_id).toMatch(/^mem_/);
        await expectApiError(carol.client.memory.create({ content: textOfTokens(8001) }), 400, 'content_too_long', 'content');
      } finally {
        await lexical.close();
      }
    });

    it('refuses a million characters without a space with 400 content_too_long, promptly', async () => {
      await expectApiError(alice.client.memory.create({ content: 'y'.repeat(1_000_000) }), 400, 'content_too_long', 'content');
    });

    it.each([
      ['a metadata value that is a number', { content: 'x', metadata: { key: 1 } }, 'metadata.key'],
      ['a metadata value that is an object', { content: 'x', metadata: { key: { nested: 'no' } } }, 'metadata.key'],
      ['metadata that is an array', { content: 'x', metadata: ['a'] }, 'metadata'],
      ['no content', { metadata: {} }, 'content'],
      ['empty content', { content: '' }, 'content'],
      ['content that is not a string', { content: 42 }, 'content'],
      ['an unknown field', { content: 'x', tags: ['a'] }, 'tags'],
    ])('refuses %s with 400 invalid_request', async (_what, body, param) => {
      await expectApiError(alice.client.memory.create(body as never), 400, 'invalid_request', param);
    });

    it('refuses a call without a key with 401', async () => {
      await expectApiError(world.anonymous.memory.create({ content: 'x' }), 401, 'unauthorized');
    });

    it('replays a repeat with the same Idempotency-Key instead of storing twice', async () => {
      const first = await alice.client.memory.create({ content: 'only once' }, { idempotencyKey: 'mem-1' });
      const again = await alice.client.memory.create({ content: 'only once' }, { idempotencyKey: 'mem-1' });
      expect(again).toEqual(first);
      const found = await alice.client.memory.search({ query: 'only once' });
      expect(found.memories.map((memory) => memory.id)).toEqual([first.memory_id]);
    });
  });

  describe('POST /v1/memory/search', () => {
    it('ranks by cosine similarity as score in 0..1, best first, with id, content, score, metadata, created_at', async () => {
      const tea = await alice.client.memory.create({ content: 'Alice drinks green tea every morning', metadata: { topic: 'drinks' } });
      await alice.client.memory.create({ content: 'The server rack needs a new power supply' });
      await alice.client.memory.create({ content: 'Quarterly taxes are due in April' });
      const { memories } = await alice.client.memory.search({ query: 'what tea does Alice drink in the morning?' });
      expect(memories).toHaveLength(3);
      expect(memories[0]).toEqual({ id: tea.memory_id, content: 'Alice drinks green tea every morning', score: expect.any(Number), metadata: { topic: 'drinks' }, created_at: tea.created_at });
      for (const memory of memories) {
        expect(Object.keys(memory).sort()).toEqual(['content', 'created_at', 'id', 'metadata', 'score']);
        expect(memory.score).toBeGreaterThanOrEqual(0);
        expect(memory.score).toBeLessThanOrEqual(1);
      }
      for (let i = 1; i < memories.length; i++) expect(memories[i - 1]!.score).toBeGreaterThanOrEqual(memories[i]!.score);
      expect(memories[0]!.score).toBeGreaterThan(memories[1]!.score);
    });

    it('scores a query identical to a memory 1', async () => {
      await alice.client.memory.create({ content: 'The spare key is under the blue flowerpot' });
      const { memories } = await alice.client.memory.search({ query: 'The spare key is under the blue flowerpot' });
      expect(memories[0]!.score).toBeCloseTo(1, 5);
    });

    it('answers 10 results by default and at most limit', async () => {
      for (let i = 0; i < 14; i++) await alice.client.memory.create({ content: `note number ${i} about the garden` });
      expect((await alice.client.memory.search({ query: 'garden note' })).memories).toHaveLength(10);
      expect((await alice.client.memory.search({ query: 'garden note', limit: 3 })).memories).toHaveLength(3);
      expect((await alice.client.memory.search({ query: 'garden note', limit: 50 })).memories).toHaveLength(14);
    });

    it.each([
      ['limit 0', { query: 'x', limit: 0 }, 'limit'],
      ['limit 51', { query: 'x', limit: 51 }, 'limit'],
      ['a fractional limit', { query: 'x', limit: 2.5 }, 'limit'],
      ['a limit given as a string', { query: 'x', limit: '5' }, 'limit'],
      ['no query', { limit: 5 }, 'query'],
      ['a filter value that is not a string', { query: 'x', metadata_filter: { topic: true } }, 'metadata_filter.topic'],
    ])('refuses %s with 400 invalid_request', async (_what, body, param) => {
      await expectApiError(alice.client.memory.search(body as never), 400, 'invalid_request', param);
    });

    it('applies metadata_filter before ranking: a selective filter answers the best matches inside it, never fewer', async () => {
      // Many strong matches outside the filter, three weak ones inside it.
      for (let i = 0; i < 30; i++) await alice.client.memory.create({ content: `Invoice ${i} for the catering order was paid`, metadata: { kind: 'invoice' } });
      const inside = [
        await alice.client.memory.create({ content: 'Catering invoice dispute with the vendor', metadata: { kind: 'note', year: '2026' } }),
        await alice.client.memory.create({ content: 'Lunch menu ideas', metadata: { kind: 'note', year: '2026' } }),
        await alice.client.memory.create({ content: 'Parking permit renewal', metadata: { kind: 'note', year: '2025' } }),
      ];
      const all = await alice.client.memory.search({ query: 'catering invoice paid', limit: 3 });
      expect(all.memories.every((memory) => memory.metadata.kind === 'invoice')).toBe(true);
      const notes = await alice.client.memory.search({ query: 'catering invoice paid', limit: 10, metadata_filter: { kind: 'note' } });
      expect(notes.memories.map((memory) => memory.id).sort()).toEqual(inside.map((memory) => memory.memory_id).sort());
      expect(notes.memories[0]!.id).toBe(inside[0]!.memory_id);
      const top = await alice.client.memory.search({ query: 'catering invoice paid', limit: 1, metadata_filter: { kind: 'note' } });
      expect(top.memories.map((memory) => memory.id)).toEqual([inside[0]!.memory_id]);
    });

    it('matches a filter by strict equality on every pair', async () => {
      const both = await alice.client.memory.create({ content: 'shared text', metadata: { a: '1', b: '2' } });
      const onlyA = await alice.client.memory.create({ content: 'shared text', metadata: { a: '1' } });
      await alice.client.memory.create({ content: 'shared text', metadata: { a: '10', b: '2' } });
      const ids = async (filter: Record<string, string>) => (await alice.client.memory.search({ query: 'shared text', metadata_filter: filter })).memories.map((memory) => memory.id).sort();
      expect(await ids({ a: '1', b: '2' })).toEqual([both.memory_id]);
      expect(await ids({ a: '1' })).toEqual([both.memory_id, onlyA.memory_id].sort());
      expect(await ids({ a: 'A1' })).toEqual([]);
      expect(await ids({ c: '1' })).toEqual([]);
      expect((await ids({})).length).toBe(3);
    });

    it("never shows one agent another agent's memories", async () => {
      await alice.client.memory.create({ content: 'Alice secret: the vault code is 4512', metadata: { owner: 'alice' } });
      const { memories } = await bob.client.memory.search({ query: 'Alice secret: the vault code is 4512' });
      expect(memories).toEqual([]);
      const filtered = await bob.client.memory.search({ query: 'vault code', metadata_filter: { owner: 'alice' } });
      expect(filtered.memories).toEqual([]);
      expect((await alice.client.memory.search({ query: 'vault code' })).memories).toHaveLength(1);
    });
  });

  describe('DELETE /v1/memory/{id}', () => {
    it('answers 204 and the memory never appears in a search again', async () => {
      const doomed = await alice.client.memory.create({ content: 'The old wifi password was hunter2', metadata: { k: 'v' } });
      const kept = await alice.client.memory.create({ content: 'The new wifi password is on the fridge' });
      const response = await world.raw(`/v1/memory/${doomed.memory_id}`, { method: 'DELETE', headers: bearer(alice.api_key) });
      expect(response.status).toBe(204);
      expect(await response.text()).toBe('');
      for (const query of ['The old wifi password was hunter2', 'wifi password']) {
        const { memories } = await alice.client.memory.search({ query, limit: 50 });
        expect(memories.map((memory) => memory.id)).toEqual([kept.memory_id]);
      }
      expect((await alice.client.memory.search({ query: 'wifi', metadata_filter: { k: 'v' } })).memories).toEqual([]);
      await expectApiError(alice.client.memory.delete(doomed.memory_id), 404, 'not_found');
    });

    it("answers 404 for an unknown id and for another agent's memory, which stays", async () => {
      const mine = await alice.client.memory.create({ content: 'Alice keeps this' });
      await expectApiError(bob.client.memory.delete(mine.memory_id), 404, 'not_found');
      await expectApiError(alice.client.memory.delete('mem_doesnotexist'), 404, 'not_found');
      expect((await alice.client.memory.search({ query: 'Alice keeps this' })).memories[0]!.id).toBe(mine.memory_id);
    });
  });
});
