import { check, checkEqual, expectError } from '../assert.js';
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
      check(webhooks.every((hook) => !('secret' in hook)), 'the list shows secrets');
      await owner.client.webhooks.delete(created.webhook_id);
      checkEqual((await owner.client.webhooks.list()).webhooks.map((hook) => hook.webhook_id), [all.webhook_id], 'the list after DELETE');
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
];
