import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/index.js';
import { MemoryStore } from '../../src/providers/store/memory-store.js';

describe('createRuntime({ data })', () => {
  it('keeps the world in the data file and continues it in the next runtime', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'data-option-')), 'world.db');
    const first = await createRuntime({ data: file });
    const ada = await first.createAgent({ name: 'ada', balances: { usd: '10.00' } });
    await first.simClient().advanceClock({ seconds: 60 });
    const clock = await first.simClient().getClock();
    await first.close();

    const second = await createRuntime({ data: file });
    expect(await second.agent(ada.api_key).wallet.getBalance()).toMatchObject({ fiat: { usd: '10.00' } });
    expect(await second.simClient().getClock()).toEqual(clock);
    await second.close();
  });

  it('tells the notice listener when it imports a JSON world, and serves it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'data-json-'));
    const source = await createRuntime();
    await source.createAgent({ name: 'bea' });
    const json = path.join(dir, 'world.json');
    writeFileSync(json, JSON.stringify(await source.simClient().snapshot()));
    const notices: string[] = [];
    const runtime = await createRuntime({ data: json, onNotice: (line) => notices.push(line) });
    expect(notices).toEqual([expect.stringContaining(`imported the JSON world ${json} into ${path.join(dir, 'world.db')}`)]);
    expect(await runtime.anonymous().identity.getPublicProfile('bea')).toMatchObject({ handle: expect.stringContaining('bea') });
    await runtime.close();
  });

  it('refuses a data file together with a store of its own', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'data-both-')), 'world.db');
    await expect(createRuntime({ data: file, store: new MemoryStore() })).rejects.toThrow('do not also give store');
  });

  it('closes the database it opened when the rest of the runtime cannot be built, so it can be opened again', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'data-fail-')), 'world.db');
    await expect(createRuntime({ data: file, startTime: 'not a time' })).rejects.toThrow('startTime');
    const runtime = await createRuntime({ data: file });
    await runtime.close();
  });
});
