import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { env } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalModelEmbedder } from '../../../src/providers/embeddings/local-model-embedder.js';
import { createRuntime } from '../../../src/index.js';
import { TINY_MODEL_HIDDEN, writeTinyModel } from './tiny-onnx-model.js';

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i]!, 0);

describe('LocalModelEmbedder (a sentence-transformers ONNX folder, run by @huggingface/transformers)', () => {
  let dir: string;
  let folder: string;
  let embedder: LocalModelEmbedder;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'local-model-'));
    folder = writeTinyModel(path.join(dir, 'tiny-model'));
    embedder = new LocalModelEmbedder({ folder });
  });
  afterAll(async () => {
    await embedder.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers one unit vector per text from the model, with remote loading switched off', async () => {
    const [cat, kitten, invoice] = await embedder.embed(['My cat sleeps all day', 'the kitten', 'the invoice was paid']);
    expect(cat).toHaveLength(TINY_MODEL_HIDDEN);
    expect(cosine(cat!, cat!)).toBeCloseTo(1, 5);
    expect(cosine(cat!, kitten!)).toBeGreaterThan(0.8);
    expect(cosine(cat!, invoice!)).toBeLessThan(0.3);
    expect(env.allowRemoteModels).toBe(false);
    expect(embedder.model).toBe('local:tiny-model:fp32:auto');
  });

  it('gives a text the same fp32 vector alone as inside a batch of longer texts', async () => {
    const [alone] = await embedder.embed(['puppy']);
    const batch = await embedder.embed(['the car brakes and the vehicle', 'puppy', 'a bill']);
    expect(Array.from(batch[1]!)).toEqual(Array.from(alone!).map((value) => expect.closeTo(value, 6)));
  });

  it('splits long inputs into batches of batchSize and keeps their order', async () => {
    const small = new LocalModelEmbedder({ folder, batchSize: 2 });
    const texts = ['cat', 'invoice', 'car', 'dog', 'bill'];
    const [batched, whole] = [await small.embed(texts), await embedder.embed(texts)];
    expect(batched.map((vector) => Array.from(vector).map((value) => value.toFixed(5)))).toEqual(whole.map((vector) => Array.from(vector).map((value) => value.toFixed(5))));
    await small.dispose();
  });

  it('serves a runtime as its embedder: memories are found by meaning', async () => {
    const runtime = await createRuntime({ providers: { embedder } });
    const { api_key } = await runtime.createAgent({ name: 'local-model' });
    const agent = runtime.agent(api_key);
    await agent.memory.create({ content: 'my kitten sleeps all day' });
    await agent.memory.create({ content: 'the invoice was paid' });
    await agent.memory.create({ content: 'the vehicle brakes' });
    const { memories } = await agent.memory.search({ query: 'feline pet' });
    expect(memories[0]!.content).toBe('my kitten sleeps all day');
    expect(memories[0]!.score).toBeGreaterThan(memories[1]!.score);
    await runtime.close();
  });

  it('refuses a folder without a model with a clear error, and refuses bad options', async () => {
    const empty = new LocalModelEmbedder({ folder: path.join(dir, 'nothing-here') });
    await expect(empty.embed(['text'])).rejects.toThrow(/cannot load a sentence-transformers ONNX model from .*nothing-here/);
    expect(() => new LocalModelEmbedder({ folder, batchSize: 0 })).toThrow(RangeError);
    expect(new LocalModelEmbedder({ folder, pooling: 'cls', dtype: 'q8' }).model).toBe('local:tiny-model:q8:cls');
    expect(await empty.embed([])).toEqual([]);
  });
});
