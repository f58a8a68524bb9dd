import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { computeReputation, counterCeiling, type ActivityCounters, type ReputationInput } from '../../../src/core/identity/reputation.js';
import { DAY_MS } from '../../../src/core/shared/time.js';

const CREATED = Date.parse('2026-01-01T00:00:00.000Z');

function input(overrides: { counters?: ActivityCounters; hasIdentityCredential?: boolean; profile?: Partial<ReputationInput['profile']>; days?: number }): ReputationInput {
  return {
    counters: overrides.counters ?? {},
    hasIdentityCredential: overrides.hasIdentityCredential ?? true,
    profile: { display_name: 'alice', bio: null, avatar_url: null, default_display_name: 'alice', ...overrides.profile },
    createdMs: CREATED,
    nowMs: CREATED + Math.round((overrides.days ?? 0) * DAY_MS),
  };
}

const score = (overrides: Parameters<typeof input>[0]) => computeReputation(input(overrides));
/** What one component adds on top of a new agent's 20. */
const component = (overrides: Parameters<typeof input>[0]) => score(overrides) - 20;

describe('computeReputation', () => {
  it('starts a new agent at 20, or 25 with a display name of its own', () => {
    expect(score({})).toBe(20);
    expect(score({ profile: { display_name: 'Alice the Agent' } })).toBe(25);
  });

  it('gives 20 for holding an identity credential and nothing without one', () => {
    expect(score({ hasIdentityCredential: false, profile: { display_name: 'Alice', bio: 'hi' } })).toBe(10);
  });

  it('gives 5 each for own display name, bio and avatar, at most 15', () => {
    expect(component({ profile: { display_name: null } })).toBe(0);
    expect(component({ profile: { display_name: '' } })).toBe(0);
    expect(component({ profile: { bio: 'about me' } })).toBe(5);
    expect(component({ profile: { bio: '' } })).toBe(0);
    expect(component({ profile: { avatar_url: 'https://example.com/a.png' } })).toBe(5);
    expect(component({ profile: { display_name: 'Alice', bio: 'b', avatar_url: 'https://example.com/a.png' } })).toBe(15);
  });

  it('gives 1 per 3 whole days of age, at most 20', () => {
    expect(component({ days: 2.99 })).toBe(0);
    expect(component({ days: 3 })).toBe(1);
    expect(component({ days: 8.9 })).toBe(2);
    expect(component({ days: 59 })).toBe(19);
    expect(component({ days: 60 })).toBe(20);
    expect(component({ days: 3650 })).toBe(20);
    expect(component({ days: -30 })).toBe(0);
  });

  it('gives 5 per doubling of confirmed payments, at most 25', () => {
    const payments = (n: number) => component({ counters: { payments_confirmed: n } });
    expect([0, 1, 2, 3, 4, 7, 8, 15, 16, 1_000_000].map(payments)).toEqual([0, 5, 10, 10, 15, 15, 20, 20, 25, 25]);
  });

  it('gives 4 per doubling of messages sent, at most 20', () => {
    const messages = (n: number) => component({ counters: { messages_sent: n } });
    expect([0, 1, 2, 4, 8, 15, 16, 999].map(messages)).toEqual([0, 4, 8, 12, 16, 16, 20, 20]);
  });

  it('gives 5 per doubling of paid invoices, at most 10', () => {
    const invoices = (n: number) => component({ counters: { invoices_paid: n } });
    expect([0, 1, 2, 3, 4, 500].map(invoices)).toEqual([0, 5, 10, 10, 10, 10]);
  });

  it('takes 5 off per doubling of failed sends, at most 20', () => {
    const failures = (n: number) => component({ counters: { payments_failed: n } });
    expect([0, 1, 2, 4, 8, 1000].map(failures)).toEqual([0, -5, -10, -15, -20, -20]);
  });

  it('clamps to 0..100', () => {
    expect(score({ hasIdentityCredential: false, counters: { payments_failed: 100 } })).toBe(0);
    const everything = score({
      profile: { display_name: 'A', bio: 'b', avatar_url: 'https://example.com/a.png' },
      days: 365,
      counters: { payments_confirmed: 100, messages_sent: 100, invoices_paid: 100 },
    });
    // 20 + 15 + 20 + 25 + 20 + 10 = 110 before the clamp
    expect(everything).toBe(100);
    expect(
      score({
        profile: { display_name: 'A', bio: 'b', avatar_url: 'https://example.com/a.png' },
        days: 365,
        counters: { payments_confirmed: 100, messages_sent: 100, invoices_paid: 100, payments_failed: 1 },
      }),
    ).toBe(100);
  });

  it('never lowers the score for more activity of a positive kind, up to the largest safe counts', () => {
    const kinds = ['payments_confirmed', 'messages_sent', 'invoices_paid'] as const;
    fc.assert(
      fc.property(fc.constantFrom(...kinds), fc.maxSafeNat(), fc.maxSafeNat(), (kind, a, b) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        expect(score({ counters: { [kind]: high } })).toBeGreaterThanOrEqual(score({ counters: { [kind]: low } }));
      }),
      { numRuns: 300 },
    );
    expect(component({ counters: { payments_confirmed: 2 ** 32 } })).toBe(25);
    expect(component({ counters: { payments_failed: 2 ** 40 } })).toBe(-20);
  });

  it('is always an integer in 0..100, whatever the counters', () => {
    const count = fc.oneof(fc.nat(), fc.double({ min: -1e6, max: 1e9, noNaN: true }));
    fc.assert(
      fc.property(
        fc.record({ payments_confirmed: count, payments_failed: count, messages_sent: count, invoices_paid: count }, { requiredKeys: [] }),
        fc.boolean(),
        fc.option(fc.string(), { nil: null }),
        fc.option(fc.string(), { nil: null }),
        fc.double({ min: -100, max: 10_000, noNaN: true }),
        (counters, hasIdentityCredential, display_name, bio, days) => {
          const value = score({ counters, hasIdentityCredential, profile: { display_name, bio }, days });
          expect(Number.isInteger(value)).toBe(true);
          expect(value).toBeGreaterThanOrEqual(0);
          expect(value).toBeLessThanOrEqual(100);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('puts each counter ceiling at the smallest count whose component is at its cap', () => {
    const kinds = ['payments_confirmed', 'messages_sent', 'invoices_paid', 'payments_failed'] as const;
    expect(kinds.map(counterCeiling)).toEqual([16, 16, 2, 8]);
    for (const kind of kinds) {
      const at = (n: number) => component({ counters: { [kind]: n } });
      const ceiling = counterCeiling(kind);
      // Nothing past the ceiling moves the score; the count just below it still does.
      fc.assert(
        fc.property(fc.integer({ min: ceiling, max: Number.MAX_SAFE_INTEGER }), (n) => at(n) === at(ceiling)),
        { numRuns: 100 },
      );
      expect(at(ceiling - 1)).not.toBe(at(ceiling));
    }
  });
});
