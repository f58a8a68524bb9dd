// A runtime on the durable store behaves exactly like one in memory, across restarts.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../../src/index.js';
import { SqliteStore } from '../../../src/providers/store/sqlite-store.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sqlite-runtime-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Dispatches a POST as the agent behind `apiKey` (route ids do not change with the client's shape). */
async function post(runtime: Runtime, routeId: string, apiKey: string | null, body: unknown, idempotencyKey: string | null = null) {
  const result = await runtime.dispatch({ routeId, bearer: apiKey, body, idempotencyKey });
  if (result.status >= 300) throw new Error(`${routeId} answered ${result.status}: ${JSON.stringify(result.body)}`);
  return result;
}

/** First half of a history: agents, money, a pending on-chain send and a keyed email. */
async function firstHalf(runtime: Runtime) {
  const ann = await runtime.createAgent({ name: 'ann' });
  await runtime.createAgent({ name: 'ben' });
  await post(runtime, 'sim.fundWallet', null, { handle: 'ann', asset: 'usdc', amount: '100' });
  await post(runtime, 'sim.fundWallet', null, { handle: 'ann', asset: 'usd', amount: '50' });
  await post(runtime, 'wallet.send', ann.api_key, { to: 'ben', amount: '5.25', asset: 'usd', memo: 'book' }, 'book-1');
  await post(runtime, 'wallet.send', ann.api_key, { to: '0x52908400098527886E0F7030069857D2E4169EE7', amount: '1.5', asset: 'usdc', network: 'base', memo: 'chain' });
  await post(runtime, 'email.send', ann.api_key, { to: ['ben@agents.test'], subject: 'hello', text: 'hi' }, 'mail-1');
  await runtime.sim.advance({ seconds: 1 });
  return ann.api_key;
}

/** Second half: the pending send confirms, a retried key replays, more work. */
async function secondHalf(runtime: Runtime, apiKey: string) {
  const replay = await runtime.dispatch({ routeId: 'wallet.send', bearer: apiKey, idempotencyKey: 'book-1', body: { to: 'ben', amount: '5.25', asset: 'usd', memo: 'book' } });
  await runtime.sim.advance({ seconds: 60 });
  await post(runtime, 'wallet.send', apiKey, { to: 'ben', amount: '1', asset: 'usd' });
  await runtime.createAgent({ name: 'cat' });
  return replay;
}

describe('a runtime on SqliteStore', () => {
  it('ends a history with the same snapshot as in memory, even when restarted half-way', async () => {
    const memory = await createRuntime({ seed: 5 });
    const memoryKey = await firstHalf(memory);
    const memoryReplay = await secondHalf(memory, memoryKey);

    const file = path.join(dir, 'world.db');
    const before = await createRuntime({ seed: 5, store: SqliteStore.open(file) });
    const key = await firstHalf(before);
    await before.close();
    const after = await createRuntime({ seed: 5, store: SqliteStore.open(file) });
    const replay = await secondHalf(after, key);

    expect(replay.headers['Idempotent-Replayed']).toBe('true');
    expect(replay.body).toEqual(memoryReplay.body);
    expect(JSON.stringify(await after.sim.snapshot())).toBe(JSON.stringify(await memory.sim.snapshot()));
    const events = (await after.sim.events(0, 1000)).events;
    expect(events.filter((event) => event.type === 'wallet.transaction.updated')).toHaveLength(1);
    await after.close();
  });

  it('restores a snapshot into the database and keeps it after a restart', async () => {
    const source = await createRuntime({ seed: 9 });
    await firstHalf(source);
    const snapshot = JSON.parse(JSON.stringify(await source.sim.snapshot()));

    const file = path.join(dir, 'restored.db');
    const first = await createRuntime({ seed: 1, store: SqliteStore.open(file) });
    await first.createAgent({ name: 'replaced' });
    await first.sim.restore(snapshot);
    await first.close();
    const second = await createRuntime({ seed: 1, store: SqliteStore.open(file) });
    expect(JSON.stringify(await second.sim.snapshot())).toBe(JSON.stringify(snapshot));
    await second.close();
  });

  it('refuses a database of another service domain at start', async () => {
    const file = path.join(dir, 'domain.db');
    const first = await createRuntime({ store: SqliteStore.open(file) });
    await first.createAgent({ name: 'ann' });
    await first.close();
    const store = SqliteStore.open(file);
    await expect(createRuntime({ store, serviceDomain: 'other.test' })).rejects.toThrow(/service domain agents\.test/);
    await store.close();
  });
});
