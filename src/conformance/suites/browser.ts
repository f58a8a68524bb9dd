import { checkEqual, expectError } from '../assert.js';
import type { CheckDefinition } from '../types.js';

/** Browser checks: the session lifecycle and isolation (no page is loaded: the target may run a real Chromium). */
export const BROWSER_CHECKS: CheckDefinition[] = [
  {
    area: 'browser',
    name: 'a session opens, is listed, and shows terminated after DELETE',
    run: async ({ agent }) => {
      const owner = await agent();
      const session = await owner.client.browser.createSession({});
      checkEqual(session.status, 'open', 'status of a new session');
      checkEqual((session.ws_endpoint as string).slice(0, 5).startsWith('ws'), true, 'ws_endpoint is a ws:// or wss:// URL');
      const listed = await owner.client.browser.listSessions();
      checkEqual(
        listed.sessions.map((item) => item.session_id),
        [session.session_id],
        'the session list',
      );
      await owner.client.browser.deleteSession(session.session_id);
      const ended = await owner.client.browser.getSession(session.session_id);
      checkEqual([ended.status, (ended as { terminated_reason?: string }).terminated_reason], ['terminated', 'closed'], 'status and terminated_reason after DELETE');
      await expectError('a screenshot of a terminated session', owner.client.browser.screenshot(session.session_id), 404, 'not_found');
    },
  },
  {
    area: 'browser',
    name: "another agent's session is 404 not_found",
    run: async ({ agent }) => {
      const owner = await agent();
      const other = await agent();
      const session = await owner.client.browser.createSession({});
      try {
        await expectError("another agent's session", other.client.browser.getSession(session.session_id), 404, 'not_found');
        await expectError("deleting another agent's session", other.client.browser.deleteSession(session.session_id), 404, 'not_found');
        checkEqual((await owner.client.browser.getSession(session.session_id)).status, 'open', 'the session after the refused delete');
      } finally {
        await owner.client.browser.deleteSession(session.session_id);
      }
    },
  },
];
