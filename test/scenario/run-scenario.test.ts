import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defineScenario, runScenario, type PolicyContext } from '../../src/index.js';

interface PingState {
  since: string | null;
  pings: number;
  replies: number;
}

/** A small world: agents ping random others by email and answer pings; money moves a little. */
const ping = defineScenario({
  name: 'ping',
  agents: 4,
  duration: '2h',
  step: '10m',
  agent: (index, { random }) => ({
    name: `p${index}`,
    balances: { usd: String(10 + random.int(10)) },
    state: { since: null, pings: 0, replies: 0 } as PingState,
    policy: async ({ client, state, random, directory, self }: PolicyContext<PingState>) => {
      const page = await client.email.list(state.since === null ? {} : { since: state.since });
      for (const message of page.messages) {
        if (message.subject === 'ping') {
          await client.email.reply(message.id, { text: 'pong' });
          state.replies += 1;
        }
      }
      state.since = page.messages[0]?.received_at ?? state.since;
      if (random.chance(0.5)) {
        const other = directory[(self.index + 1 + random.int(directory.length - 1)) % directory.length]!;
        await client.email.send({ to: [other.email], subject: 'ping', text: 'ping' });
        await client.wallet.send({ to: other.name, amount: '0.01', asset: 'usd' });
        state.pings += 1;
      }
    },
  }),
  invariants: {
    'usd is conserved': async ({ sim }) => {
      const { assets } = await sim.walletLedger();
      return assets.usd.funded_in === assets.usd.held || `held ${assets.usd.held}`;
    },
  },
});

describe('runScenario', () => {
  it('gives the same trace and SHA-256 for the same seed, and another for another seed', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'scenario-'));
    const first = await runScenario(ping, { seed: 5, tracePath: path.join(dir, 'a.jsonl') });
    const second = await runScenario(ping, { seed: 5, tracePath: path.join(dir, 'b.jsonl') });
    const other = await runScenario(ping, { seed: 6 });
    const a = readFileSync(path.join(dir, 'a.jsonl'));
    expect(a.equals(readFileSync(path.join(dir, 'b.jsonl')))).toBe(true);
    expect(first.sha256).toBe(createHash('sha256').update(a).digest('hex'));
    expect(second.sha256).toBe(first.sha256);
    expect(other.sha256).not.toBe(first.sha256);
    expect(first.stepsRun).toBe(12);
    expect(first.agentSteps).toBe(48);
    expect(first.broken).toBeNull();
    expect(first.eventTypes['email.sent']).toBeGreaterThan(0);
  });

  it('traces every call and event: a run line, the steps, calls with their input and answer, events, an end line', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'scenario-'));
    const result = await runScenario(ping, { seed: 1, agents: 3, duration: '30m', tracePath: path.join(dir, 't.jsonl') });
    const lines = readFileSync(path.join(dir, 't.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(result.traceLines);
    expect(lines[0]).toMatchObject({ k: 'run', scenario: 'ping', seed: 1, agents: 3, duration: '30m', steps: 3, start: '2026-01-01T00:00:00.000Z' });
    expect(lines.filter((line) => line.k === 'step').map((line) => line.at)).toEqual(['2026-01-01T00:10:00.000Z', '2026-01-01T00:20:00.000Z', '2026-01-01T00:30:00.000Z']);
    const calls = lines.filter((line) => line.k === 'call');
    expect(calls).toHaveLength(result.calls);
    expect(calls.find((call) => call.route === 'sim.createAgent')).toMatchObject({ caller: 'runner', status: 201, input: { body: { name: 'p0' } } });
    const send = calls.find((call) => call.route === 'wallet.send');
    expect(send).toMatchObject({ status: 201, input: { body: { amount: '0.01', asset: 'usd' } }, result: { status: 'confirmed' } });
    expect(calls.find((call) => call.route === 'sim.walletLedger')).toMatchObject({ caller: 'invariant' });
    expect(lines.filter((line) => line.k === 'event')).toHaveLength(result.events);
    // The events a call appended follow it: a book transfer's two history records.
    const at = lines.indexOf(send!);
    expect(lines.slice(at + 1, at + 3).map((line) => [line.k, line.type])).toEqual([
      ['event', 'wallet.transaction.created'],
      ['event', 'wallet.transaction.created'],
    ]);
    expect(lines.at(-1)).toMatchObject({ k: 'end', steps_run: 3, agent_steps: 9, broken: null });
  });

  it('stops at the first broken invariant and says which, where and why', async () => {
    const broken = defineScenario({
      ...ping,
      invariants: {
        'usd is conserved': ping.invariants!['usd is conserved']!,
        'nobody sends more than 2 pings': ({ step }) => (step >= 3 ? 'someone sent 3 pings' : true),
      },
    });
    const result = await runScenario(broken, { seed: 2 });
    expect(result.broken).toEqual({ name: 'nobody sends more than 2 pings', step: 3, at: '2026-01-01T00:30:00.000Z', message: 'someone sent 3 pings' });
    expect(result.stepsRun).toBe(3);
    expect(result.metrics.failures['invariant broken']?.reduce((a, b) => a + b)).toBe(1);
  });

  it('counts errors a policy lets escape and keeps going; API errors are counted by code', async () => {
    const failing = defineScenario({
      name: 'overspend',
      agents: 2,
      duration: '30m',
      agent: (index) => ({
        name: `o${index}`,
        state: {},
        policy: async ({ client, directory, self }) => {
          await client.wallet.send({ to: directory[1 - self.index]!.name, amount: '1', asset: 'usd' });
        },
      }),
    });
    const result = await runScenario(failing);
    expect(result.policyErrors).toBe(6);
    expect(result.errors).toEqual({ insufficient_funds: 6 });
    expect(result.firstPolicyErrors[0]).toMatchObject({ step: 1, message: expect.stringMatching(/^402 insufficient_funds/) });
  });

  it('hands the world hook and invariants the events of the step, and gives each agent its own random stream', async () => {
    const seen: string[] = [];
    const draws: Record<string, number[]> = {};
    const watcher = defineScenario({
      name: 'watcher',
      agents: 2,
      duration: '20m',
      agent: (index) => ({
        name: `w${index}`,
        state: {},
        policy: async ({ client, random, self }) => {
          (draws[self.name] ??= []).push(random.next());
          await client.identity.updateProfile({ bio: `step` });
        },
      }),
      world: {
        step: async ({ events, step }) => {
          seen.push(`world ${step}: ${events.length}`);
        },
      },
      invariants: {
        'sees the profile updates': ({ events, step }) => {
          seen.push(`invariant ${step}: ${events.filter((event) => event.type === 'agent.updated').length}`);
        },
      },
    });
    await runScenario(watcher, { seed: 3 });
    // The world's first call sees the agents' creation (agent.created and credential.issued, two
    // each); later calls see what happened since: the agents' updates of the step before.
    expect(seen).toEqual(['world 1: 4', 'invariant 1: 2', 'world 2: 2', 'invariant 2: 2']);
    const again: Record<string, number[]> = { ...draws };
    for (const key of Object.keys(draws)) delete draws[key];
    await runScenario(watcher, { seed: 3, agents: 1 });
    // Fewer agents do not change the draws of the ones that remain.
    expect(draws.w0).toEqual(again.w0);
    expect(again.w0).not.toEqual(again.w1);
  });
});

describe('defineScenario', () => {
  const base = { name: 'x', agents: 1, duration: '1h', agent: () => ({ name: 'aa', state: {}, policy: async () => {} }) };

  it('marks a valid scenario', () => {
    expect(defineScenario(base).kind).toBe('agent-services/scenario');
  });

  it.each([
    [{ name: '' }, /name/],
    [{ agents: 0 }, /agents/],
    [{ duration: '24 hours' }, /duration/],
    [{ step: 'often' }, /duration/],
    [{ agent: 'nope' }, /agent/],
    [{ invariants: { broken: 1 } }, /invariants\["broken"\]/],
  ])('refuses %j', (change, message) => {
    expect(() => defineScenario({ ...base, ...change } as never)).toThrow(message);
  });

  it('refuses a run whose step is longer than its duration, and two agents with one name', async () => {
    await expect(runScenario(defineScenario({ ...base, step: '2h' }))).rejects.toThrow(/longer than the duration/);
    await expect(runScenario(defineScenario({ ...base, agents: 2 }))).rejects.toThrow(/already taken/);
  });
});
