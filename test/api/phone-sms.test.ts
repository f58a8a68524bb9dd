import { isValidPhoneNumber } from 'libphonenumber-js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InboundSms, SmsMessage } from '../../src/index.js';
import { ISO_MS_Z, TRANSPORTS_AND_POSTGRES, bearer, expectApiError, expectErrorResponse, jsonInit, openWorld, type TestAgent, type World } from '../support/transports.js';

const OUTSIDE = '+14155552671';

describe.each(TRANSPORTS_AND_POSTGRES)('phone: numbers and SMS (%s)', (kind) => {
  let world: World;
  let alice: TestAgent;
  let bob: TestAgent;

  beforeEach(async () => {
    world = await openWorld(kind);
    alice = await world.newAgent('alice');
    bob = await world.newAgent('bob', { phone_country: 'GB' });
  });
  afterEach(() => world.close());

  const advance = (seconds: number) => world.sim.advanceClock({ seconds });
  const events = async (type: string) => (await world.sim.listEvents({ limit: 1000 })).events.filter((event) => event.type === type);

  describe('numbers', () => {
    it('gives every agent a unique valid E.164 number of its country at creation, US by default', async () => {
      expect(alice.phone_number).toMatch(/^\+1\d{10}$/);
      expect(bob.phone_number).toMatch(/^\+44\d{10}$/);
      const ca = await world.newAgent('carol', { phone_country: 'CA' });
      const de = await world.newAgent('dave', { phone_country: 'de' });
      const numbers = [alice, bob, ca, de].map((agent) => agent.phone_number!);
      for (const number of numbers) expect(isValidPhoneNumber(number), number).toBe(true);
      expect(new Set(numbers).size).toBe(4);
      expect(await de.client.phone.getNumber()).toEqual({ phone_number: de.phone_number, country: 'DE', capabilities: { sms: true, voice: true, mms: false } });
      expect(await alice.client.phone.getNumber()).toEqual({ phone_number: alice.phone_number, country: 'US', capabilities: { sms: true, voice: true, mms: false } });
    });

    // Each process of a PostgreSQL world draws from its own fork of the world's random state.
    it.skipIf(kind === 'postgres')('draws the same numbers from the same seed', async () => {
      const again = await openWorld('in-process');
      try {
        expect((await again.newAgent('alice')).phone_number).toBe(alice.phone_number);
        expect((await again.newAgent('bob', { phone_country: 'GB' })).phone_number).toBe(bob.phone_number);
      } finally {
        await again.close();
      }
    });

    it('refuses an unknown country with 400 invalid_request on phone_country and creates nothing', async () => {
      for (const country of ['XX', 'USA', 'VA', 7]) {
        await expectApiError(world.sim.createAgent({ name: 'erin', phone_country: country as string }), 400, 'invalid_request', 'phone_country');
      }
      await world.newAgent('erin');
    });
  });

  describe('POST /v1/phone/sms', () => {
    it('answers 201 with the queued message, its segments and encoding', async () => {
      const response = await world.raw('/v1/phone/sms', jsonInit('POST', { to: OUTSIDE, body: 'Hello {world}' }, bearer(alice.api_key)));
      expect(response.status).toBe(201);
      const body = (await response.json()) as SmsMessage;
      expect(Object.keys(body).sort()).toEqual(['body', 'created_at', 'encoding', 'error_code', 'from', 'message_id', 'num_segments', 'status', 'to', 'updated_at']);
      expect(body).toMatchObject({ to: OUTSIDE, from: alice.phone_number, body: 'Hello {world}', status: 'queued', num_segments: 1, encoding: 'GSM-7', error_code: null });
      expect(body.message_id).toMatch(/^sms_/);
      expect(body.created_at).toMatch(ISO_MS_Z);
      expect(body.updated_at).toBe(body.created_at);
    });

    it('segments long and non-GSM text as Twilio does', async () => {
      const long = await alice.client.phone.sendSms({ to: OUTSIDE, body: 'x'.repeat(161) });
      expect(long).toMatchObject({ num_segments: 2, encoding: 'GSM-7' });
      const unicode = await alice.client.phone.sendSms({ to: OUTSIDE, body: 'Grüße 😀 '.repeat(10) });
      expect(unicode).toMatchObject({ num_segments: 2, encoding: 'UCS-2' });
      const max = await alice.client.phone.sendSms({ to: OUTSIDE, body: '€'.repeat(1600) });
      // 76 two-septet characters per 153-septet part: 1,600 need 22 parts.
      expect(max).toMatchObject({ num_segments: 22, encoding: 'GSM-7' });
    });

    it('moves queued → sent after 1 s → delivered 3 s later, each change an sms.status_changed event with the message', async () => {
      const sent = await alice.client.phone.sendSms({ to: OUTSIDE, body: 'ping' });
      await advance(0.999);
      expect((await alice.client.phone.getSms(sent.message_id)).status).toBe('queued');
      await advance(0.001);
      const one = await alice.client.phone.getSms(sent.message_id);
      expect(one).toMatchObject({ status: 'sent', updated_at: '2026-01-01T00:00:01.000Z' });
      await advance(2.999);
      expect((await alice.client.phone.getSms(sent.message_id)).status).toBe('sent');
      await advance(0.001);
      const done = await alice.client.phone.getSms(sent.message_id);
      expect(done).toMatchObject({ status: 'delivered', error_code: null, updated_at: '2026-01-01T00:00:04.000Z' });
      const changes = await events('sms.status_changed');
      expect(changes.map((event) => event.data.status)).toEqual(['queued', 'sent', 'delivered']);
      for (const event of changes) expect(event.agent_id).toBe(alice.agent_id);
      expect(changes[2]!.data).toEqual(done);
      expect(changes[1]!.data).toEqual(one);
    });

    it("lands a message to another agent's number in its inbound list when delivered, with sms.received", async () => {
      const sent = await alice.client.phone.sendSms({ to: bob.phone_number!, body: 'Hi Bob' });
      await advance(3);
      expect((await bob.client.phone.listMessages()).messages).toEqual([]);
      await advance(1);
      const expected: InboundSms = { id: sent.message_id, from: alice.phone_number!, to: bob.phone_number!, body: 'Hi Bob', num_segments: 1, received_at: '2026-01-01T00:00:04.000Z' };
      expect(await bob.client.phone.listMessages()).toEqual({ messages: [expected], next_cursor: null });
      const received = await events('sms.received');
      expect(received).toHaveLength(1);
      expect(received[0]).toMatchObject({ agent_id: bob.agent_id, data: expected });
      expect((await alice.client.phone.listMessages()).messages).toEqual([]);
    });

    it("keeps Twilio's test numbers: 0001 refused, 0002 fails 30003, 0004 fails 30004, 0006 delivered", async () => {
      await expectApiError(alice.client.phone.sendSms({ to: '+15005550001', body: 'x' }), 400, 'invalid_recipient', 'to');
      const unreachable = await alice.client.phone.sendSms({ to: '+15005550002', body: 'x' });
      const blocked = await alice.client.phone.sendSms({ to: '+15005550004', body: 'x' });
      const valid = await alice.client.phone.sendSms({ to: '+15005550006', body: 'x' });
      await advance(4);
      expect(await alice.client.phone.getSms(unreachable.message_id)).toMatchObject({ status: 'failed', error_code: '30003' });
      expect(await alice.client.phone.getSms(blocked.message_id)).toMatchObject({ status: 'failed', error_code: '30004' });
      expect(await alice.client.phone.getSms(valid.message_id)).toMatchObject({ status: 'delivered', error_code: null });
      expect((await alice.client.phone.listSms()).messages).toHaveLength(3);
    });

    it('refuses bad input with the DECISIONS.md status, code and param and changes nothing', async () => {
      const before = (await world.sim.listEvents({ limit: 1000 })).events.length;
      const cases: Array<[unknown, number, string, string]> = [
        [{ to: '4155552671', body: 'x' }, 400, 'invalid_recipient', 'to'],
        [{ to: '+1 415 555 2671', body: 'x' }, 400, 'invalid_recipient', 'to'],
        [{ to: '+15551234567', body: 'x' }, 400, 'invalid_recipient', 'to'],
        [{ to: 'bob', body: 'x' }, 400, 'invalid_recipient', 'to'],
        [{ to: '', body: 'x' }, 400, 'invalid_recipient', 'to'],
        [{ to: `+1${'4'.repeat(200)}`, body: 'x' }, 400, 'invalid_recipient', 'to'],
        [{ to: alice.phone_number, body: 'x' }, 400, 'invalid_recipient', 'to'],
        [{ to: 14155552671, body: 'x' }, 400, 'invalid_request', 'to'],
        [{ body: 'x' }, 400, 'invalid_request', 'to'],
        [{ to: OUTSIDE, body: '' }, 400, 'invalid_request', 'body'],
        [{ to: OUTSIDE, body: 'x'.repeat(1601) }, 400, 'invalid_request', 'body'],
        [{ to: OUTSIDE }, 400, 'invalid_request', 'body'],
        [{ to: OUTSIDE, body: 'x', media_url: 'https://x.test/a.png' }, 400, 'invalid_request', 'media_url'],
      ];
      for (const [body, status, code, param] of cases) {
        await expectErrorResponse(await world.raw('/v1/phone/sms', jsonInit('POST', body, bearer(alice.api_key))), status, code as 'invalid_request', param);
      }
      expect((await alice.client.phone.listSms()).messages).toEqual([]);
      expect((await world.sim.listEvents({ limit: 1000 })).events).toHaveLength(before);
    });

    it('replays a repeat with the same Idempotency-Key and sends once', async () => {
      const first = await alice.client.phone.sendSms({ to: OUTSIDE, body: 'once' }, { idempotencyKey: 'sms-1' });
      const again = await alice.client.phone.sendSms({ to: OUTSIDE, body: 'once' }, { idempotencyKey: 'sms-1' });
      expect(again).toEqual(first);
      expect((await alice.client.phone.listSms()).messages).toHaveLength(1);
      await expectApiError(alice.client.phone.sendSms({ to: OUTSIDE, body: 'twice' }, { idempotencyKey: 'sms-1' }), 409, 'idempotency_conflict');
    });

    it('counts a sent SMS as activity for reputation', async () => {
      const before = (await alice.client.identity.getProfile()).reputation;
      await alice.client.phone.sendSms({ to: OUTSIDE, body: 'hi' });
      expect((await alice.client.identity.getProfile()).reputation).toBe(before + 4);
    });
  });

  describe('GET /v1/phone/sms', () => {
    it('lists outbound messages newest first, a page walk seeing each once while new ones arrive', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await alice.client.phone.sendSms({ to: OUTSIDE, body: `m${i}` })).message_id);
      const first = await alice.client.phone.listSms({ limit: 2 });
      expect(first.messages.map((message) => message.message_id)).toEqual([ids[4], ids[3]]);
      await alice.client.phone.sendSms({ to: OUTSIDE, body: 'later' });
      const second = await alice.client.phone.listSms({ limit: 2, cursor: first.next_cursor! });
      const third = await alice.client.phone.listSms({ limit: 2, cursor: second.next_cursor! });
      expect([...second.messages, ...third.messages].map((message) => message.message_id)).toEqual([ids[2], ids[1], ids[0]]);
      expect(third.next_cursor).toBeNull();
    });

    it("hides other agents' messages: 404 not_found for their ids, never in the list", async () => {
      const sent = await alice.client.phone.sendSms({ to: OUTSIDE, body: 'mine' });
      await expectApiError(bob.client.phone.getSms(sent.message_id), 404, 'not_found');
      await expectApiError(bob.client.phone.getSms('sms_nope'), 404, 'not_found');
      expect((await bob.client.phone.listSms()).messages).toEqual([]);
    });

    it('refuses a limit out of range and a foreign cursor', async () => {
      await expectApiError(alice.client.phone.listSms({ limit: 0 }), 400, 'invalid_request', 'limit');
      await expectApiError(alice.client.phone.listSms({ limit: 101 }), 400, 'invalid_request', 'limit');
      await expectApiError(alice.client.phone.listSms({ cursor: 'bogus' }), 400, 'invalid_request', 'cursor');
    });
  });

  describe('inbound SMS', () => {
    it('takes SMS from outside to an agent number and pages them newest first with cursor and since', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const accepted = await world.sim.phoneInbound({ to: alice.phone_number!, from: OUTSIDE, body: `in ${i} ✓` });
        expect(Object.keys(accepted)).toEqual(['message_id']);
        ids.push(accepted.message_id);
        await advance(10);
      }
      const first = await alice.client.phone.listMessages({ limit: 2 });
      expect(first.messages.map((message) => message.id)).toEqual([ids[4], ids[3]]);
      expect(first.messages[0]).toEqual({ id: ids[4], from: OUTSIDE, to: alice.phone_number, body: 'in 4 ✓', num_segments: 1, received_at: '2026-01-01T00:00:40.000Z' });
      const rest = await alice.client.phone.listMessages({ limit: 10, cursor: first.next_cursor! });
      expect(rest).toEqual({ messages: expect.any(Array), next_cursor: null });
      expect(rest.messages.map((message) => message.id)).toEqual([ids[2], ids[1], ids[0]]);
      const since = await alice.client.phone.listMessages({ since: '2026-01-01T00:00:20.000Z' });
      expect(since.messages.map((message) => message.id)).toEqual([ids[4], ids[3]]);
      const sincePage = await alice.client.phone.listMessages({ since: '2026-01-01T00:00:05.000Z', limit: 2 });
      const sinceRest = await alice.client.phone.listMessages({ since: '2026-01-01T00:00:05.000Z', limit: 2, cursor: sincePage.next_cursor! });
      expect([...sincePage.messages, ...sinceRest.messages].map((message) => message.id)).toEqual([ids[4], ids[3], ids[2], ids[1]]);
      expect(sinceRest.next_cursor).toBeNull();
      expect((await events('sms.received')).map((event) => event.agent_id)).toEqual(Array(5).fill(alice.agent_id));
      expect((await bob.client.phone.listMessages()).messages).toEqual([]);
    });

    it('refuses an unknown number with 404, a bad sender, body or query with 400', async () => {
      await expectApiError(world.sim.phoneInbound({ to: OUTSIDE, from: OUTSIDE, body: 'x' }), 404, 'not_found');
      await expectApiError(world.sim.phoneInbound({ to: alice.phone_number!, from: 'nobody', body: 'x' }), 400, 'invalid_request', 'from');
      await expectApiError(world.sim.phoneInbound({ to: alice.phone_number!, from: OUTSIDE, body: '' }), 400, 'invalid_request', 'body');
      await expectApiError(alice.client.phone.listMessages({ since: 'yesterday' }), 400, 'invalid_request', 'since');
      await expectApiError(alice.client.phone.listMessages({ limit: 101 }), 400, 'invalid_request', 'limit');
      expect((await alice.client.phone.listMessages()).messages).toEqual([]);
    });
  });

  it('needs an API key', async () => {
    await expectErrorResponse(await world.raw('/v1/phone'), 401, 'unauthorized');
    await expectErrorResponse(await world.raw('/v1/phone/sms', jsonInit('POST', { to: OUTSIDE, body: 'x' })), 401, 'unauthorized');
  });
});
