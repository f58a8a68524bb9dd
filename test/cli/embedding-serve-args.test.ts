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
