/**
 * The browser-session endpoints' validation and ownership through all three transports (and over a
 * PostgreSQL world, where sessions have owners and quotas are counted in the database). No
 * browser starts here: every call is refused before one would (the end-to-end runs with real
 * clients are in test/api/browser/).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, openWorld, TRANSPORTS_AND_POSTGRES, type TestAgent, type World } from '../support/transports.js';

describe.each(TRANSPORTS_AND_POSTGRES)('browser sessions API over %s', (kind) => {
  let world: World;
  let agent: TestAgent;

  beforeAll(async () => {
    world = await openWorld(kind, { seed: 3, browser: { provider: 'simulated' } });
    agent = await world.newAgent('erin');
  });
  afterAll(async () => world?.close());

  it('refuses a viewport outside 320..3840 x 200..2160 with 400 invalid_request naming the field', async () => {
    await expectApiError(agent.client.browser.createSession({ viewport: { width: 100, height: 720 } }), 400, 'invalid_request', 'viewport.width');
    await expectApiError(agent.client.browser.createSession({ viewport: { width: 1280, height: 5000 } }), 400, 'invalid_request', 'viewport.height');
    await expectApiError(agent.client.browser.createSession({ viewport: { width: 1280.5, height: 720 } }), 400, 'invalid_request', 'viewport.width');
  });

  it('refuses a start URL that is not http or https', async () => {
    await expectApiError(agent.client.browser.createSession({ url: 'file:///etc/passwd' }), 400, 'invalid_request', 'url');
    await expectApiError(agent.client.browser.createSession({ url: 'not a url' }), 400, 'invalid_request', 'url');
  });

  it('refuses unknown body fields', async () => {
    await expectApiError(agent.client.browser.createSession({ headless: false } as never), 400, 'invalid_request');
  });

  it('answers 404 not_found for a session that does not exist, on every route', async () => {
    await expectApiError(agent.client.browser.getSession('bs_missing'), 404, 'not_found');
    await expectApiError(agent.client.browser.deleteSession('bs_missing'), 404, 'not_found');
    await expectApiError(agent.client.browser.screenshot('bs_missing'), 404, 'not_found');
  });

  it('lists no sessions for a new agent and refuses a limit out of range', async () => {
    expect(await agent.client.browser.listSessions()).toEqual({ sessions: [], next_cursor: null });
    await expectApiError(agent.client.browser.listSessions({ limit: 0 }), 400, 'invalid_request', 'limit');
    await expectApiError(agent.client.browser.listSessions({ cursor: 'nonsense' }), 400, 'invalid_request', 'cursor');
  });

  it('needs an API key', async () => {
    await expectApiError(world.anonymous.browser.listSessions(), 401, 'unauthorized');
  });
});
