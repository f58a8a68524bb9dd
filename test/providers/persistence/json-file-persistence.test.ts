import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson, createRuntime, JsonFilePersistence, type Runtime } from '../../../src/index.js';

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'persistence-'));
  file = path.join(dir, 'state.json');
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The same history, played on any runtime: two agents, a profile change and an hour of time. */
async function playHistory(runtime: Runtime) {
  const alice = await runtime.createAgent({ name: 'alice', display_name: 'Alice' });
  const bob = await runtime.createAgent({ name: 'bob' });
  await runtime.agent(alice.api_key).identity.updateProfile({ bio: 'buys things', avatar_url: 'https://example.com/a.png' });
  await runtime.sim.advance({ seconds: 3600 });
  return { alice, bob };
}

/** Every event of a runtime's log, oldest first. */
async function allEvents(runtime: Runtime) {
  return (await runtime.sim.events(0, 1000)).events;
}

describe('a runtime persisted to a JSON file', () => {
  it('comes back with the same agents, keys, clock and event log after a restart', async () => {
    const first = await createRuntime({ persistence: new JsonFilePersistence(file), seed: 1 });
    const { alice, bob } = await playHistory(first);
    const aliceProfile = await first.agent(alice.api_key).identity.getProfile();
    const bobPublic = await first.anonymous().identity.getPublicProfile('bob');
    const clock = await first.sim.clock();
    const events = await allEvents(first);
    await first.close();

    const second = await createRuntime({ persistence: new JsonFilePersistence(file), seed: 1 });
    expect(await second.anonymous().identity.getPublicProfile('bob')).toEqual(bobPublic);
    expect(await second.agent(alice.api_key).identity.getProfile()).toEqual(aliceProfile);
    expect((await second.agent(bob.api_key).identity.getProfile()).agent_id).toBe(bob.agent_id);
    expect(aliceProfile.bio).toBe('buys things');
    expect(await second.sim.clock()).toEqual(clock);
    expect(clock.now).toBe('2026-01-01T01:00:00.000Z');
    expect(await allEvents(second)).toEqual(events);
    await second.close();
  });

  it('continues the event log with the next sequence number after a restart', async () => {
    const first = await createRuntime({ persistence: new JsonFilePersistence(file), seed: 1 });
    await playHistory(first);
    const before = await allEvents(first);
    await first.close();

    const second = await createRuntime({ persistence: new JsonFilePersistence(file), seed: 1 });
    await second.createAgent({ name: 'carol' });
    const after = await allEvents(second);
    const seqs = after.map((event) => event.seq);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.length).toBeGreaterThan(before.length);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(after[before.length]).toMatchObject({ seq: before.length + 1, type: 'agent.created', at: '2026-01-01T01:00:00.000Z' });
    await second.close();
  });

  it('draws the same next ids after a restart as a runtime that never stopped', async () => {
    const first = await createRuntime({ persistence: new JsonFilePersistence(file), seed: 1 });
    await playHistory(first);
    await first.close();
    const reloaded = await createRuntime({ persistence: new JsonFilePersistence(file), seed: 1 });

    const neverStopped = await createRuntime({ seed: 1 });
    await playHistory(neverStopped);

    const fromReloaded = await reloaded.createAgent({ name: 'carol' });
    const fromNeverStopped = await neverStopped.createAgent({ name: 'carol' });
    expect(fromReloaded).toEqual(fromNeverStopped);
    expect(canonicalJson(await reloaded.sim.snapshot())).toBe(canonicalJson(await neverStopped.sim.snapshot()));
    await reloaded.close();
  });

  it('has a change on disk as soon as the call that made it resolves', async () => {
    const runtime = await createRuntime({ persistence: new JsonFilePersistence(file), seed: 1 });
    const alice = await runtime.createAgent({ name: 'alice' });
    expect(readFileSync(file, 'utf8')).toContain(alice.agent_id);

    await runtime.sim.advance({ seconds: 90 });
    expect(JSON.parse(readFileSync(file, 'utf8')).clock).toEqual({ now: '2026-01-01T00:01:30.000Z' });
    await runtime.close();
  });

  it('saves every change of a burst of concurrent calls', async () => {
    const runtime = await createRuntime({ persistence: new JsonFilePersistence(file), seed: 1 });
    const names = Array.from({ length: 12 }, (_, index) => `agent-${index}`);
    const created = await Promise.all(names.map((name) => runtime.createAgent({ name })));
    await runtime.close();

    const reloaded = await createRuntime({ persistence: new JsonFilePersistence(file), seed: 1 });
    for (const agent of created) expect((await reloaded.agent(agent.api_key).identity.getProfile()).handle).toBe(agent.handle);
    expect(await reloaded.sim.snapshot()).toEqual(await runtime.sim.snapshot());
    await reloaded.close();
  });

  it('starts empty at the configured start time when the file does not exist yet', async () => {
    const runtime = await createRuntime({ persistence: new JsonFilePersistence(file), seed: 1 });
    expect(await allEvents(runtime)).toEqual([]);
    expect(await runtime.sim.clock()).toEqual({ now: '2026-01-01T00:00:00.000Z' });
    await runtime.close();
  });

  it('refuses to start, naming the file, when it holds garbage instead of starting empty', async () => {
    writeFileSync(file, '{"format": "agent-services/snapshot", "vers');
    await expect(createRuntime({ persistence: new JsonFilePersistence(file), seed: 1 })).rejects.toThrow(file);
    expect(readFileSync(file, 'utf8')).toBe('{"format": "agent-services/snapshot", "vers');
  });

  it('refuses to start when the file holds JSON that is not a snapshot', async () => {
    writeFileSync(file, '{"agents": []}');
    await expect(createRuntime({ persistence: new JsonFilePersistence(file), seed: 1 })).rejects.toThrow(/format/);
    expect(readFileSync(file, 'utf8')).toBe('{"agents": []}');
  });

  it('refuses a file saved for another service domain', async () => {
    const first = await createRuntime({ persistence: new JsonFilePersistence(file), seed: 1 });
    await first.createAgent({ name: 'alice' });
    await first.close();
    await expect(createRuntime({ persistence: new JsonFilePersistence(file), seed: 1, serviceDomain: 'other.test' })).rejects.toThrow(/service_domain/);
  });
});
