import type { Policy } from '../../core/policy/policy.schema.js';
import { ApiError } from '../../core/shared/api-error.js';
import { CheckSkipped, check, checkEqual, expectError } from '../assert.js';
import type { ConformanceAgent } from '../agents.js';
import type { CheckContext, CheckDefinition } from '../types.js';

/**
 * Sets a policy through the control plane.
 * @throws CheckSkipped when the target has no policy control (`/_sim/agents/{name}/policy`)
 */
async function setPolicy({ target }: CheckContext, agent: ConformanceAgent, policy: Policy): Promise<void> {
  const set = target.control.setPolicy;
  if (!set) throw new CheckSkipped('needs policy control: the target offers no PUT /_sim/agents/{name}/policy');
  try {
    await set(agent.name, policy);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_found' && !/agent/.test(error.message)) {
      throw new CheckSkipped(`needs PUT /_sim/agents/{name}/policy: the target answered 404 (${error.message})`);
    }
    throw error;
  }
}

/** Policy checks (DECISIONS.md, Policies): the document, limits that hold exactly, refusals that change nothing. */
export const POLICY_CHECKS: CheckDefinition[] = [
  {
    area: 'policy',
    name: 'a policy is set, read by its agent, replaced whole and removed; bad documents are refused by field',
    run: async (context) => {
      const agent = await context.agent();
      checkEqual(await agent.client.policy.get(), { policy: null }, 'GET /v1/agent/policy before any policy');
      const first: Policy = { wallet: { per_transaction: { usd: '100.00' } }, email: { recipient_domains: ['example.com'] } };
      await setPolicy(context, agent, first);
      checkEqual(await agent.client.policy.get(), { policy: first }, 'the policy as set');
      const second: Policy = { phone: { sms_per_day: 0 } };
      await setPolicy(context, agent, second);
      checkEqual(await agent.client.policy.get(), { policy: second }, 'the policy after a second PUT (a whole document)');
      for (const [document, param] of [
        [{ wallet: { per_day: { usd: '1.001' } } }, 'wallet.per_day.usd'],
        [{ email: { per_day: -1 } }, 'email.per_day'],
        [{ phone: { countries: ['ZZ'] } }, 'phone.countries.0'],
        [{ colour: 'red' }, 'colour'],
      ] as const) {
        await expectError(`a policy ${JSON.stringify(document)}`, setPolicy(context, agent, document as unknown as Policy), 400, 'invalid_request', param);
      }
      checkEqual(await agent.client.policy.get(), { policy: second }, 'the policy after refused documents');
      await context.target.control.removePolicy!(agent.name);
      checkEqual(await agent.client.policy.get(), { policy: null }, 'the policy after DELETE');
    },
  },
  {
    area: 'policy',
    name: 'per-transaction and per-day limits hold exactly; a refusal is 403 policy_violation on amount and moves no money',
    run: async (context) => {
      const payer = await context.agent({ balances: { usd: '1000' } });
      const payee = await context.agent();
      await setPolicy(context, payer, { wallet: { per_transaction: { usd: '100' }, per_day: { usd: '150' } } });
      await expectError('a send over the per-transaction limit', payer.client.wallet.send({ to: payee.handle, amount: '100.01', asset: 'usd' }), 403, 'policy_violation', 'amount');
      await payer.client.wallet.send({ to: payee.handle, amount: '100', asset: 'usd' });
      await expectError('a send past the per-day limit', payer.client.wallet.send({ to: payee.handle, amount: '50.01', asset: 'usd' }), 403, 'policy_violation', 'amount');
      await payer.client.wallet.send({ to: payee.handle, amount: '50', asset: 'usd' });
      checkEqual((await payer.client.wallet.getBalance()).fiat.usd, '850.00', "the payer's balance after two refusals");
      checkEqual((await payee.client.wallet.getBalance()).fiat.usd, '150.00', "the payee's balance");
    },
  },
  {
    area: 'policy',
    name: '20 concurrent sends around a per-day limit: exactly those that fit are accepted',
    run: async (context) => {
      const payer = await context.agent({ balances: { usd: '1000' } });
      const payee = await context.agent();
      await setPolicy(context, payer, { wallet: { per_day: { usd: '95' } } });
      const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => payer.client.wallet.send({ to: payee.handle, amount: '10', asset: 'usd' })));
      const accepted = outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
      checkEqual(accepted, 9, 'sends of 10 usd accepted under a per-day limit of 95 usd');
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') check(outcome.reason instanceof ApiError && outcome.reason.code === 'policy_violation', `a refused send answered ${String(outcome.reason)}`);
      }
      checkEqual((await payer.client.wallet.getBalance()).fiat.usd, '910.00', "the payer's balance");
    },
  },
  {
    area: 'policy',
    name: 'daily counts start again at 00:00 UTC of service time',
    run: async (context) => {
      const sender = await context.agent();
      await setPolicy(context, sender, { email: { per_day: 1 } });
      await sender.client.email.send({ to: ['someone@example.com'], subject: 'one', text: '1' });
      await expectError('a second message the same day', sender.client.email.send({ to: ['someone@example.com'], subject: 'two', text: '2' }), 403, 'policy_violation', 'to');
      const { now } = await context.target.control.advanceClock(0);
      const ms = Date.parse(now);
      await context.target.control.advanceClock(Math.ceil((Math.floor(ms / 86_400_000 + 1) * 86_400_000 - ms) / 1000));
      await sender.client.email.send({ to: ['someone@example.com'], subject: 'next day', text: '3' });
    },
  },
  {
    area: 'policy',
    name: 'mail outside the allowed domains is refused for to, cc and bcc; SMS outside the allowed countries is refused; nothing is sent',
    run: async (context) => {
      const sender = await context.agent();
      await setPolicy(context, sender, { email: { recipient_domains: ['example.com'] }, phone: { countries: ['US'] } });
      await expectError('mail to another domain', sender.client.email.send({ to: ['a@elsewhere.test'], subject: 's', text: 't' }), 403, 'policy_violation', 'to.0');
      await expectError('mail cc another domain', sender.client.email.send({ to: ['a@example.com'], cc: ['b@elsewhere.test'], subject: 's', text: 't' }), 403, 'policy_violation', 'cc.0');
      await expectError('mail bcc another domain', sender.client.email.send({ to: ['a@example.com'], bcc: ['b@elsewhere.test'], subject: 's', text: 't' }), 403, 'policy_violation', 'bcc.0');
      checkEqual((await sender.client.email.list({ folder: 'sent' })).messages.length, 0, 'messages in the sent folder');
      await expectError('an SMS to GB', sender.client.phone.sendSms({ to: '+442071838750', body: 'hi' }), 403, 'policy_violation', 'to');
      checkEqual((await sender.client.phone.listSms()).messages.length, 0, 'SMS sent');
    },
  },
];
