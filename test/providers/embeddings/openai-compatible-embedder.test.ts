import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/core/shared/api-error.js';
import { OpenAICompatibleEmbedder } from '../../../src/providers/embeddings/openai-compatible-embedder.js';
import { createRuntime } from '../../../src/index.js';

interface Seen {
  path: string;
  authorization: string | undefined;
  body: { model: string; input: string[]; dimensions?: number };
}

/** A local stand-in for an OpenAI-compatible server: vectors derived from the text, answered out of order. */
function fakeEmbeddingServer() {
  const seen: Seen[] = [];
  let failures: number[] = [];
  const read = async (request: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Seen['body'];
  };
  const server: Server = createServer(async (request, response) => {
    const body = await read(request);
    seen.push({ path: request.url ?? '', authorization: request.headers.authorization, body });
    const status = failures.shift();
    if (status) {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'boom, secret detail' } }));
      return;
    }
    // A toy model: [length, vowels, 1] per text, so the test can tell which vector is whose.
    const data = body.input.map((text, index) => ({ object: 'embedding', index, embedding: [text.length, (text.match(/[aeiou]/g) ?? []).length, 1] }));
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', model: body.model, data: data.reverse() }));
  });
  return {
    seen,
    failNext: (...statuses: number[]) => void (failures = statuses),
    start: () => new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('OpenAICompatibleEmbedder', () => {
  const server = fakeEmbeddingServer();
  let baseUrl = '';
  beforeAll(async () => {
    baseUrl = await server.start();
  });
  afterAll(() => server.stop());
  beforeEach(() => {
    server.seen.length = 0;
    server.failNext();
  });

  it('posts {model, input} to /v1/embeddings with the bearer key and reads vectors in index order', async () => {
    const embedder = new OpenAICompatibleEmbedder({ baseUrl, model: 'toy-embed', apiKey: 'sk-test' });
    const vectors = await embedder.embed(['a', 'hello', 'queue']);
    expect(vectors.map((vector) => [...vector])).toEqual([
      [1, 1, 1],
      [5, 2, 1],
      [5, 4, 1],
    ]);
    expect(server.seen).toHaveLength(1);
    expect(server.seen[0]).toEqual({ path: '/v1/embeddings', authorization: 'Bearer sk-test', body: { model: 'toy-embed', input: ['a', 'hello', 'queue'] } });
    expect(embedder.model).toBe('openai-compatible:toy-embed');
  });

  it('sends texts in batches of batchSize and keeps their order across batches', async () => {
    const embedder = new OpenAICompatibleEmbedder({ baseUrl, model: 'toy-embed', batchSize: 2 });
    const texts = ['a', 'bb', 'ccc', 'dddd', 'eeeee'];
    const vectors = await embedder.embed(texts);
    expect(vectors.map((vector) => vector[0])).toEqual([1, 2, 3, 4, 5]);
    expect(server.seen.map((seen) => seen.body.input)).toEqual([['a', 'bb'], ['ccc', 'dddd'], ['eeeee']]);
    expect(server.seen[0]!.authorization).toBeUndefined();
  });

  it('accepts a base URL that already ends in /v1, and asks for dimensions when given', async () => {
    const embedder = new OpenAICompatibleEmbedder({ baseUrl: `${baseUrl}/v1/`, model: 'toy-embed', dimensions: 3 });
    await embedder.embed(['x']);
    expect(server.seen[0]!.path).toBe('/v1/embeddings');
    expect(server.seen[0]!.body.dimensions).toBe(3);
    expect(embedder.model).toBe('openai-compatible:toy-embed/3');
  });

  it('retries a 503 and a 429, then succeeds', async () => {
    server.failNext(503, 429);
    const embedder = new OpenAICompatibleEmbedder({ baseUrl, model: 'toy-embed', retries: 2 });
    expect((await embedder.embed(['ok']))[0]![0]).toBe(2);
    expect(server.seen).toHaveLength(3);
  });

  it('answers 500 internal_error naming the status, not the body, when the provider keeps failing or refuses', async () => {
    server.failNext(500, 500);
    const flaky = new OpenAICompatibleEmbedder({ baseUrl, model: 'toy-embed', retries: 1 });
    const error = await flaky.embed(['x']).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 500, code: 'internal_error' });
    expect((error as ApiError).message).toContain('HTTP 500');
    expect((error as ApiError).message).not.toContain('secret');
    server.failNext(401);
    await expect(flaky.embed(['x'])).rejects.toMatchObject({ status: 500, code: 'internal_error', message: expect.stringContaining('401') });
    expect(server.seen).toHaveLength(3);
  });

  it('reads base64 embeddings (little-endian float32) and refuses one that is not a vector', async () => {
    const base64 = (...values: number[]) => Buffer.from(Float32Array.from(values).buffer).toString('base64');
    const answering = (embedding: string) => new OpenAICompatibleEmbedder({ baseUrl, model: 'b64', retries: 0, fetch: async () => Response.json({ data: [{ index: 0, embedding }] }) });
    expect([...(await answering(base64(0.5, -2, 3)).embed(['x']))[0]!]).toEqual([0.5, -2, 3]);
    await expect(answering(base64(1, Number.NaN)).embed(['x'])).rejects.toMatchObject({ status: 500, code: 'internal_error' });
    await expect(answering('AAA').embed(['x'])).rejects.toMatchObject({ status: 500, code: 'internal_error' });
  });

  it('answers internal_error when the server cannot be reached', async () => {
    const embedder = new OpenAICompatibleEmbedder({ baseUrl: 'http://127.0.0.1:1', model: 'toy-embed', retries: 0, timeoutMs: 2000 });
    await expect(embedder.embed(['x'])).rejects.toMatchObject({ code: 'internal_error' });
  });

  it('serves a runtime as its embedder: memories are embedded and searched through the endpoint', async () => {
    const runtime = await createRuntime({ providers: { embedder: new OpenAICompatibleEmbedder({ baseUrl, model: 'toy-embed' }) } });
    const { api_key } = await runtime.createAgent({ name: 'embedder-user' });
    const agent = runtime.agent(api_key);
    await agent.memory.create({ content: 'aaaa' });
    const short = await agent.memory.create({ content: 'zz' });
    const found = await agent.memory.search({ query: 'zz', limit: 1 });
    expect(found.memories[0]!.id).toBe(short.memory_id);
    expect(found.memories[0]!.score).toBeCloseTo(1, 5);
    expect(server.seen.map((seen) => seen.body.input)).toEqual([['aaaa'], ['zz'], ['zz']]);
  });
});
