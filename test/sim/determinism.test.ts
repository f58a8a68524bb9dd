import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ApiError, canonicalJson, createRuntime, sha256Hex, type Runtime } from '../../src/index.js';

const RESERVED = new Set(['credentials', 'admin', 'root', 'support', 'postmaster', 'abuse', 'noreply']);

/** One step of a scenario; agents are addressed by index into the names created so far. */
type Op =
  | { kind: 'create'; name: string; display_name?: string; bio?: string; key?: string }
  | { kind: 'update'; agent: number; display_name?: string; bio?: string | null; avatar_url?: string | null }
  | { kind: 'advance'; seconds: number }
  | { kind: 'read'; agent: number }
  | { kind: 'fail'; variant: 'bad-name' | 'reserved' | 'unknown-key' | 'bad-avatar' | 'past' | 'unknown-handle' };

const name = fc.oneof(
  fc.constantFrom('alice', 'bob', 'carol', 'dave-1', '00'),
  fc.stringMatching(/^[a-z0-9][a-z0-9-]{1,31}$/).filter((text) => !RESERVED.has(text)),
);
const text = fc.string({ minLength: 1, maxLength: 20 });

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('create' as const), name, display_name: text, bio: text, key: fc.constantFrom('k1', 'k2') }, { requiredKeys: ['kind', 'name'] }) },
  {
    weight: 3,
    arbitrary: fc.record(
      {
        kind: fc.constant('update' as const),
        agent: fc.nat(20),
        display_name: text,
        bio: fc.option(text, { nil: null }),
        avatar_url: fc.option(fc.constantFrom('https://example.com/a.png', 'https://img.test/b'), { nil: null }),
      },
      { requiredKeys: ['kind', 'agent'] },
    ),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), seconds: fc.integer({ min: 0, max: 10 * 86_400 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('read' as const), agent: fc.nat(20) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('fail' as const),
      variant: fc.constantFrom('bad-name' as const, 'reserved' as const, 'unknown-key' as const, 'bad-avatar' as const, 'past' as const, 'unknown-handle' as const),
    }),
  },
);

/** Drives one runtime; remembers API keys, which are shown only at creation. */
class Driver {
  readonly keys: string[] = [];
  readonly outcomes: string[] = [];

  constructor(readonly runtime: Runtime) {}

  private keyFor(index: number): string | undefined {
    return this.keys.length === 0 ? undefined : this.keys[index % this.keys.length];
  }

  async run(ops: Op[]): Promise<void> {
    for (const step of ops) this.outcomes.push(await this.outcome(() => this.apply(step)));
  }

  private async outcome(action: () => Promise<unknown>): Promise<string> {
    try {
      return canonicalJson({ ok: (await action()) ?? null });
    } catch (error) {
      if (error instanceof ApiError) return canonicalJson({ status: error.status, code: error.code });
      throw error;
    }
  }

  private async apply(step: Op): Promise<unknown> {
    const rt = this.runtime;
    switch (step.kind) {
      case 'create': {
        const { kind: _kind, key, ...body } = step;
        const created = await rt.simClient().createAgent(body, key === undefined ? {} : { idempotencyKey: key });
        if (!this.keys.includes(created.api_key)) this.keys.push(created.api_key);
        return created;
      }
      case 'update': {
        const key = this.keyFor(step.agent);
        if (!key) return 'no agent yet';
        const { kind: _kind, agent: _agent, ...body } = step;
        return rt.agent(key).identity.updateProfile(body);
      }
      case 'advance':
        return rt.sim.advance({ seconds: step.seconds });
      case 'read': {
        const key = this.keyFor(step.agent);
        if (!key) return rt.sim.clock();
        const profile = await rt.agent(key).identity.getProfile();
        return [profile, await rt.anonymous().identity.getPublicProfile(profile.handle)];
      }
      case 'fail':
        switch (step.variant) {
          case 'bad-name':
            return rt.simClient().createAgent({ name: '-Bad' });
          case 'reserved':
            return rt.simClient().createAgent({ name: 'postmaster' });
          case 'unknown-key':
            return rt.agent('sk_unknown').identity.updateProfile({ bio: 'x' });
          case 'bad-avatar':
            return rt.agent(this.keyFor(0) ?? 'sk_none').identity.updateProfile({ avatar_url: 'http://insecure.test/a.png' });
          case 'past':
            return rt.sim.advance({ to: '2000-01-01T00:00:00.000Z' });
          case 'unknown-handle':
            return rt.anonymous().identity.getPublicProfile('nobody-here');
        }
    }
  }
}

const stateHash = async (runtime: Runtime) => sha256Hex(canonicalJson(await runtime.sim.snapshot()));

describe('determinism', () => {
  it('gives the same state, byte for byte, for the same seed and the same calls', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.nat(), fc.string({ maxLength: 8 })), fc.array(op, { maxLength: 12 }), async (seed, ops) => {
        const first = new Driver(await createRuntime({ seed }));
        const second = new Driver(await createRuntime({ seed }));
        await first.run(ops);
        await second.run(ops);
        expect(second.outcomes).toEqual(first.outcomes);
        expect(await stateHash(second.runtime)).toBe(await stateHash(first.runtime));
        expect(await second.runtime.sim.events(0, 1000)).toEqual(await first.runtime.sim.events(0, 1000));
      }),
      { numRuns: 25 },
    );
  });

  it('continues a restored snapshot exactly as the original world continues', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.array(op, { maxLength: 8 }), fc.array(op, { maxLength: 8 }), async (seed, prefix, suffix) => {
        const original = new Driver(await createRuntime({ seed }));
        await original.run(prefix);
        const snapshot = JSON.parse(JSON.stringify(await original.runtime.sim.snapshot()));

        const restored = new Driver(await createRuntime({ seed }));
        await restored.runtime.sim.restore(snapshot);
        expect(await stateHash(restored.runtime)).toBe(await stateHash(original.runtime));
        restored.keys.push(...original.keys);

        await original.run(suffix);
        await restored.run(suffix);
        expect(restored.outcomes).toEqual(original.outcomes.slice(prefix.length));
        expect(await stateHash(restored.runtime)).toBe(await stateHash(original.runtime));
      }),
      { numRuns: 25 },
    );
  });

  it('gives different worlds for different seeds', async () => {
    const worlds = await Promise.all([1, 2].map((seed) => createRuntime({ seed })));
    for (const runtime of worlds) await runtime.simClient().createAgent({ name: 'alice' });
    expect(await stateHash(worlds[0]!)).not.toBe(await stateHash(worlds[1]!));
  });
});
