/**
 * The shipped scenarios run with small agent counts: deals are made and paid, questions are
 * answered from memory, faults make payments fail and the money invariant holds throughout.
 */
import { describe, expect, it } from 'vitest';
import { runScenario } from '../../src/index.js';
import chaos from '../../examples/scenarios/chaos.js';
import marketplace from '../../examples/scenarios/marketplace.js';
import supportDesk from '../../examples/scenarios/support-desk.js';
import spendingLimits from '../../examples/scenarios/spending-limits.js';

describe('example scenarios', () => {
  it('marketplace: agents negotiate by email, invoice and pay; money is conserved', async () => {
    const result = await runScenario(marketplace, { seed: 1, agents: 12, duration: '12h' });
    expect(result.broken).toBeNull();
    expect(result.policyErrors).toBe(0);
    expect(result.errors).toEqual({});
    expect(result.eventTypes['invoice.created']).toBeGreaterThan(3);
    // Each paid invoice is a book transfer: two history records, one per side.
    expect(result.eventTypes['wallet.transaction.created']).toBeGreaterThan(3);
    expect(result.eventTypes['email.sent']).toBeGreaterThan(result.eventTypes['invoice.created']!);
  });

  it('support desk: every inbound email and SMS is answered from memory search within 30 minutes', async () => {
    const result = await runScenario(supportDesk, { seed: 1, agents: 2, duration: '6h' });
    expect(result.broken).toBeNull();
    expect(result.policyErrors).toBe(0);
    expect(result.metrics.messages['SMS received']?.reduce((a, b) => a + b)).toBeGreaterThan(0);
    expect(result.metrics.messages['SMS sent']).toEqual(result.metrics.messages['SMS received']);
    const inboundMail = result.eventTypes['email.received'] ?? 0;
    expect(inboundMail).toBeGreaterThan(0);
    expect(result.eventTypes['email.sent']).toBe(inboundMail);
  });

  it('chaos: payments fail under faults and are sent again; the money invariant holds after every step', async () => {
    const result = await runScenario(chaos, { seed: 7, agents: 10, duration: '12h' });
    expect(result.broken).toBeNull();
    expect(result.invariants).toEqual(['money is conserved']);
    expect(result.metrics.failures['payment failed']?.reduce((a, b) => a + b)).toBeGreaterThan(0);
    expect(result.metrics.failures['fault rule added']?.reduce((a, b) => a + b)).toBeGreaterThan(0);
  });

  it('spending limits: shoppers limited to 100 usd a day at two merchants never spend more, however hard they try', async () => {
    const result = await runScenario(spendingLimits, { seed: 3, agents: 12, duration: '30h' });
    expect(result.broken).toBeNull();
    expect(result.policyErrors).toBe(0);
    // Refusals are answers the shoppers expect: every one is a 403 policy_violation and one event.
    expect(Object.keys(result.errors)).toEqual(['policy_violation']);
    expect(result.eventTypes['policy.violated']).toBe(result.errors.policy_violation);
    expect(result.eventTypes['policy.violated']).toBeGreaterThan(100);
  });

  it('spending limits: without the policies the invariant breaks', async () => {
    const unguarded = { ...spendingLimits, world: { ...spendingLimits.world, setup: async () => {} } };
    const result = await runScenario(unguarded, { seed: 3, agents: 6, duration: '12h' });
    expect(result.broken).toMatchObject({ name: 'spending limits hold' });
  });

  it('chaos: a broken money invariant is caught at the step it breaks', async () => {
    // The same run, with a world step that funds an agent: money then comes from nowhere.
    const leaky = {
      ...chaos,
      world: {
        ...chaos.world,
        step: async (context: Parameters<NonNullable<NonNullable<typeof chaos.world>['step']>>[0]) => {
          await chaos.world!.step!(context);
          if (context.step === 4) await context.sim.fundWallet({ handle: 'trader-0', asset: 'usd', amount: '1' });
        },
      },
    };
    const result = await runScenario(leaky, { seed: 7, agents: 4, duration: '2h' });
    expect(result.broken).toMatchObject({ name: 'money is conserved', step: 4, message: expect.stringMatching(/^usd: funded in moved from/) });
  });
});
