import { createHmac } from 'node:crypto';
import { check, checkEqual, expectError } from '../assert.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import type { CheckDefinition } from '../types.js';

/** Webhook checks: registration, secrets shown once, deletion, isolation, validation. */
export const WEBHOOKS_CHECKS: CheckDefinition[] = [
  {
    area: 'webhooks',
    name: 'a webhook is created with a whsec_ secret shown only once, listed, and deleted',
    run: async ({ agent }) => {
      const owner = await agent();
      const created = await owner.client.webhooks.create({ url: 'http://127.0.0.1:9/hooks', events: ['sms.status_changed'] });
      check(/^whsec_/.test(created.secret), `secret ${created.secret} does not start with whsec_`);
      checkEqual(created.events, ['sms.status_changed'], 'events');
      const all = await owner.client.webhooks.create({ url: 'http://127.0.0.1:9/all' });
      checkEqual(all.events, ['*'], 'the default events');
      const { webhooks } = await owner.client.webhooks.list();
      checkEqual(webhooks.map((hook) => hook.webhook_id).sort(), [created.webhook_id, all.webhook_id].sort(), 'the listed webhooks');
      check(
        webhooks.every((hook) => !('secret' in hook)),
        'the list shows secrets',
      );
      await owner.client.webhooks.delete(created.webhook_id);
      checkEqual(
        (await owner.client.webhooks.list()).webhooks.map((hook) => hook.webhook_id),
        [all.webhook_id],
        'the list after DELETE',
      );
      await owner.client.webhooks.delete(all.webhook_id);
    },
  },
  {
    area: 'webhooks',
    name: "another agent's webhook is 404 not_found and bad urls are 400 invalid_request on url",
    run: async ({ agent }) => {
      const owner = await agent();
      const other = await agent();
      const created = await owner.client.webhooks.create({ url: 'http://127.0.0.1:9/hooks' });
      await expectError("deleting another agent's webhook", other.client.webhooks.delete(created.webhook_id), 404, 'not_found');
      checkEqual((await other.client.webhooks.list()).webhooks.length, 0, "another agent's webhook list");
      await expectError('a url that is not http(s)', owner.client.webhooks.create({ url: 'ftp://example.com/x' }), 400, 'invalid_request', 'url');
      await expectError('a url that is not a URL', owner.client.webhooks.create({ url: 'not a url' }), 400, 'invalid_request', 'url');
      await owner.client.webhooks.delete(created.webhook_id);
    },
  },
  {
    area: 'webhooks',
    name: 'a delivery is signed with the secret (Agent-Signature over "<t>.<raw body>") and carries the API object',
    needs: ['receiver'],
    run: async ({ agent, target }) => {
      const receiver = await startWebhookReceiver();
      try {
        const owner = await agent();
        const hook = await owner.client.webhooks.create({ url: `${receiver.url}/hook`, events: ['sms.status_changed'] });
        const sms = await owner.client.phone.sendSms({ to: '+15005550006', body: 'signed' });
        // Deliveries go out over real HTTP once the clock passes the status change: move the clock
        // a second at a time and give the request a moment to land, a bounded number of times.
        for (let step = 0; step < 60 && receiver.received.length === 0; step++) {
          await target.control.advanceClock(1);
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        const delivery = receiver.received[0];
        check(delivery, 'no webhook delivery arrived within 60 s of service time after an SMS status change');
        const signature = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(delivery.headers['agent-signature'] ?? '');
        check(signature, `Agent-Signature ${JSON.stringify(delivery.headers['agent-signature'])} is not t=<unix seconds>,v1=<hex>`);
        const expected = createHmac('sha256', hook.secret).update(`${signature[1]}.${delivery.body}`).digest('hex');
        checkEqual(signature[2], expected, 'v1 (HMAC-SHA256 of "<t>.<raw body>" keyed with the whole whsec_ secret)');
        checkEqual([delivery.headers['agent-webhook-id'], delivery.headers['agent-delivery-attempt']], [hook.webhook_id, '1'], 'Agent-Webhook-Id and Agent-Delivery-Attempt');
        const event = JSON.parse(delivery.body) as { id: string; type: string; agent_id: string; created_at: string; data: { message_id?: string } };
        check(/^evt_/.test(event.id), `event id ${event.id} does not start with evt_`);
        checkEqual([event.type, event.agent_id, event.data.message_id], ['sms.status_changed', owner.agent_id, sms.message_id], 'type, agent_id and data.message_id of the event');
      } finally {
        await receiver.close();
      }
    },
  },
];
