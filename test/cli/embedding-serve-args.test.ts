import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseServeArgs } from '../../src/cli/serve-command.js';
import { createRuntime } from '../../src/index.js';
import { writeTinyModel } from '../providers/embeddings/tiny-onnx-model.js';

describe('agent-services serve --embedding-model', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'embedding-model-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('embeds memories with the model of the folder instead of the default', async () => {
    const folder = writeTinyModel(path.join(dir, 'tiny'));
    const { runtime: options } = parseServeArgs(['--embedding-model', folder]);
    expect(options.memory?.embeddingModel).toEqual({ folder, dtype: 'fp32' });
    const runtime = await createRuntime(options);
    const agent = runtime.agent((await runtime.createAgent({ name: 'cli-model' })).api_key);
    await agent.memory.create({ content: 'the invoice was paid' });
    await agent.memory.create({ content: 'my puppy' });
    expect((await agent.memory.search({ query: 'dog' })).memories[0]!.content).toBe('my puppy');
    await runtime.close();
  });

  it('keeps the default without the flag, and refuses an unknown --embedding-dtype', () => {
    expect(parseServeArgs([]).runtime.memory?.embeddingModel).toBeUndefined();
    expect(parseServeArgs(['--embedding-model', dir, '--embedding-dtype', 'q8']).runtime.memory?.embeddingModel).toEqual({ folder: dir, dtype: 'q8' });
    expect(() => parseServeArgs(['--embedding-model', dir, '--embedding-dtype', 'int4'])).toThrow('--embedding-dtype must be fp32 or q8, got "int4"');
  });
});

describe('agent-services serve --embedder', () => {
  it('passes the built-in embedder it names, and refuses another name', () => {
    expect(parseServeArgs(['--embedder', 'word-vectors']).runtime.memory).toEqual({ embedder: 'word-vectors' });
    expect(parseServeArgs([]).runtime.memory).toBeUndefined();
    expect(() => parseServeArgs(['--embedder', 'gpt'])).toThrow('--embedder must be sentence-encoder, word-vectors or lexical, got "gpt"');
  });

  it('embeds with the named embedder: its model is stored with every memory', async () => {
    for (const [name, model] of [
      ['lexical', 'hashing-porter-v1/384'],
      ['word-vectors', 'hybrid-v1(0.8):sif-v1:glove6b-100k-int8/100+hashing-porter-v1/384'],
    ] as const) {
      const runtime = await createRuntime(parseServeArgs(['--embedder', name]).runtime);
      const agent = runtime.agent((await runtime.createAgent({ name })).api_key);
      await agent.memory.create({ content: 'my cat sleeps all day' });
      const rows = (await runtime.sim.snapshot()).store.collections.memories!.rows.map((row) => (row[3] as { embedding_model: string }).embedding_model);
      expect(rows).toEqual([model]);
      await runtime.close();
    }
    await expect(createRuntime({ memory: { embedder: 'gpt' as 'lexical' } })).rejects.toThrow('memory.embedder must be one of sentence-encoder, word-vectors, lexical, got "gpt"');
  });
});
