import fc from 'fast-check';
import { check, checkEqual, expectError } from '../assert.js';
import { checkProperty } from '../property.js';
import type { CheckDefinition } from '../types.js';
import { expectedSegments, SMS_ALPHABET } from './sms-segments.js';

/** Phone checks: numbers, segment counts, the SMS and call lifecycles, inbound SMS, isolation, errors. */
export const PHONE_CHECKS: CheckDefinition[] = [
  {
    area: 'phone',
    name: 'every agent has a unique E.164 number with sms and voice',
    run: async ({ agent }) => {
      const one = await agent();
      const two = await agent();
      const numbers = [await one.client.phone.getNumber(), await two.client.phone.getNumber()];
      for (const number of numbers) {
        check(/^\+[1-9]\d{6,14}$/.test(number.phone_number), `phone_number ${number.phone_number} is not E.164`);
        checkEqual(number.capabilities, { sms: true, voice: true, mms: false }, 'capabilities');
      }
      check(numbers[0]!.phone_number !== numbers[1]!.phone_number, 'two agents share a number');
      checkEqual(numbers[0]!.phone_number, one.phone_number, 'GET /v1/phone against the number given at creation');
    },
  },
  {
    area: 'phone',
    name: 'SMS encoding and segment counts follow GSM-7 and UCS-2 rules',
    property: true,
    run: async (context) => {
      const sender = await context.agent();
      await checkProperty(
        context,
        fc.asyncProperty(
          fc.array(fc.constantFrom(...SMS_ALPHABET), { minLength: 1, maxLength: 360 }).map((chars) => chars.join('')),
          async (body) => {
            const sent = await sender.client.phone.sendSms({ to: '+15005550006', body });
            const expected = expectedSegments(body);
            checkEqual({ encoding: sent.encoding, num_segments: sent.num_segments }, expected, `encoding and segments of a body of ${body.length} UTF-16 units`);
            checkEqual(sent.status, 'queued', 'status at send');
          },
        ),
      );
    },
  },
  {
    area: 'phone',
    name: 'an SMS goes queued, sent, delivered on the clock; Twilio test numbers fail with their codes',
    run: async ({ agent, target }) => {
      const sender = await agent();
      await expectError('an SMS to +15005550001', sender.client.phone.sendSms({ to: '+15005550001', body: 'hi' }), 400, 'invalid_recipient', 'to');
      const good = await sender.client.phone.sendSms({ to: '+15005550006', body: 'hello' });
      const bad = await sender.client.phone.sendSms({ to: '+15005550002', body: 'hello' });
      checkEqual([good.status, good.error_code], ['queued', null], 'a fresh SMS');
      await target.control.advanceClock(1);
      checkEqual((await sender.client.phone.getSms(good.message_id)).status, 'sent', 'status 1 s after the send');
      await target.control.advanceClock(30);
      checkEqual((await sender.client.phone.getSms(good.message_id)).status, 'delivered', 'status 31 s after the send');
      const failed = await sender.client.phone.getSms(bad.message_id);
      checkEqual([failed.status, failed.error_code], ['failed', '30003'], 'an SMS to +15005550002');
    },
  },
  {
    area: 'phone',
    name: 'SMS to another agent and from outside land in the inbound messages',
    run: async ({ agent, target }) => {
      const sender = await agent();
      const receiver = await agent();
      await sender.client.phone.sendSms({ to: receiver.phone_number!, body: 'between agents' });
      await target.control.inboundSms({ to: receiver.phone_number!, from: '+14155550123', body: 'from outside' });
      await target.control.advanceClock(30);
      const { messages } = await receiver.client.phone.listMessages();
      const bodies = messages.map((message) => [message.from, message.body]);
      check(
        bodies.some(([from, body]) => from === sender.phone_number && body === 'between agents'),
        `inbound messages ${JSON.stringify(bodies)} lack the SMS from ${sender.phone_number}`,
      );
      check(
        bodies.some(([from, body]) => from === '+14155550123' && body === 'from outside'),
        `inbound messages ${JSON.stringify(bodies)} lack the SMS from outside`,
      );
      checkEqual((await sender.client.phone.listMessages()).messages.length, 0, "the sender's inbound messages");
    },
  },
  {
    area: 'phone',
    name: 'bad SMS and calls are refused with their code and param',
    run: async ({ agent }) => {
      const sender = await agent();
      await expectError('an SMS to the own number', sender.client.phone.sendSms({ to: sender.phone_number!, body: 'me' }), 400, 'invalid_recipient', 'to');
      await expectError('an SMS to a non-number', sender.client.phone.sendSms({ to: '12345', body: 'x' }), 400, 'invalid_recipient', 'to');
      await expectError('a body of 1,601 characters', sender.client.phone.sendSms({ to: '+15005550006', body: 'a'.repeat(1601) }), 400, 'invalid_request', 'body');
      await expectError('an empty body', sender.client.phone.sendSms({ to: '+15005550006', body: '' }), 400, 'invalid_request', 'body');
      await expectError('a call with neither script nor twiml_url', sender.client.phone.placeCall({ to: '+15005550006' } as never), 400, 'invalid_request', 'script');
      await expectError('a call with both', sender.client.phone.placeCall({ to: '+15005550006', script: 'hi', twiml_url: 'https://example.com/t' } as never), 400, 'invalid_request', 'script');
    },
  },
  {
    area: 'phone',
    name: 'a scripted call rings, is answered, says its script and completes',
    run: async ({ agent, target }) => {
      const caller = await agent();
      const call = await caller.client.phone.placeCall({ to: '+15005550006', script: 'Your order has shipped today' });
      checkEqual(call.status, 'initiated', 'status of a new call');
      await target.control.advanceClock(120);
      const done = await caller.client.phone.getCall(call.call_id);
      checkEqual(done.status, 'completed', 'status two minutes later');
      check(
        done.transcript.some((line) => line.text.includes('Your order has shipped today')),
        `the transcript ${JSON.stringify(done.transcript)} lacks the script`,
      );
      checkEqual(done.duration_seconds, 2, 'duration_seconds of five words at 150 words per minute');
    },
  },
  {
    area: 'phone',
    name: "another agent's SMS and calls are 404 not_found",
    run: async ({ agent }) => {
      const owner = await agent();
      const other = await agent();
      const sms = await owner.client.phone.sendSms({ to: '+15005550006', body: 'mine' });
      const call = await owner.client.phone.placeCall({ to: '+15005550006', script: 'mine' });
      await expectError("another agent's SMS", other.client.phone.getSms(sms.message_id), 404, 'not_found');
      await expectError("another agent's call", other.client.phone.getCall(call.call_id), 404, 'not_found');
      checkEqual((await other.client.phone.listSms()).messages.length, 0, "another agent's SMS list");
    },
  },
];
