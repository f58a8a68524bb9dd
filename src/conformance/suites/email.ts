import fc from 'fast-check';
import type { ConformanceAgent } from '../agents.js';
import { check, checkEqual, expectError, expectOk } from '../assert.js';
import { checkProperty } from '../property.js';
import type { CheckDefinition } from '../types.js';
import { checkWalk, walkPages } from './shared.js';

/** The inbox message with this subject (the first page is enough: checks use fresh agents). @throws CheckFailure when absent */
async function inboxMessage(agent: ConformanceAgent, subject: string): Promise<{ id: string; thread_id: string }> {
  const page = await agent.client.email.list({ folder: 'inbox', limit: 100 });
  const found = page.messages.find((message) => message.subject === subject);
  check(found, `no message with subject ${JSON.stringify(subject)} in ${agent.email}'s inbox (it holds ${page.messages.length})`);
  return found;
}

/** Base64 of bytes (no Buffer: the suite runs wherever fetch does). */
function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Email checks: delivery, threading, inbound mail, read state, attachments, pagination, isolation, errors. */
export const EMAIL_CHECKS: CheckDefinition[] = [
  {
    area: 'email',
    name: 'mail between agents arrives and a reply stays in the thread with In-Reply-To and References',
    run: async ({ agent }) => {
      const alice = await agent();
      const bob = await agent();
      const sent = await alice.client.email.send({ to: [bob.email], subject: 'Quote request', text: 'How much for 3 widgets?' });
      const received = await inboxMessage(bob, 'Quote request');
      const full = await bob.client.email.get(received.id);
      checkEqual([full.from, full.to, full.text], [alice.email, [bob.email], 'How much for 3 widgets?'], 'from, to and text of the delivered message');
      const reply = await bob.client.email.reply(received.id, { text: '30 USD.' });
      checkEqual(reply.thread_id, received.thread_id, "the reply's thread_id (the thread of the message it answers)");
      const answer = await inboxMessage(alice, 'Re: Quote request');
      checkEqual(answer.thread_id, sent.thread_id, "the reply's thread in the original sender's mailbox");
      const headers = Object.fromEntries(Object.entries((await alice.client.email.get(answer.id)).headers).map(([name, value]) => [name.toLowerCase(), value]));
      const original = Object.fromEntries(Object.entries(full.headers).map(([name, value]) => [name.toLowerCase(), value]));
      check(original['message-id'], `the delivered message has no Message-ID header: ${JSON.stringify(full.headers)}`);
      checkEqual(headers['in-reply-to'], original['message-id'], 'In-Reply-To of the reply');
      check((headers['references'] ?? '').includes(original['message-id']!), `References of the reply (${headers['references']}) does not hold ${original['message-id']}`);
      const thread = await alice.client.email.list({ folder: 'inbox', thread_id: sent.thread_id });
      checkEqual(
        thread.messages.map((message) => message.subject),
        ['Re: Quote request'],
        "the thread filter of the sender's inbox",
      );
    },
  },
  {
    area: 'email',
    name: 'mail from outside lands in the inbox and a reply goes back to its sender',
    run: async ({ agent, target }) => {
      const desk = await agent();
      const inbound = await target.control.inboundEmail({ to: desk.email, from: 'customer@example.com', subject: 'Order 42', text: 'Where is my order?' });
      const received = await inboxMessage(desk, 'Order 42');
      checkEqual(received.thread_id, inbound.thread_id, 'thread_id of the inbound message');
      const reply = await desk.client.email.reply(received.id, { text: 'On its way.' });
      const sentCopy = await desk.client.email.get(reply.message_id);
      checkEqual([sentCopy.to, sentCopy.subject], [['customer@example.com'], 'Re: Order 42'], 'recipient and subject of the reply');
    },
  },
  {
    area: 'email',
    name: 'opening a message sets read: true',
    run: async ({ agent, target }) => {
      const reader = await agent();
      await target.control.inboundEmail({ to: reader.email, from: 'news@example.com', subject: 'Unread', text: 'hello' });
      const message = await inboxMessage(reader, 'Unread');
      checkEqual((await reader.client.email.get(message.id)).read, true, 'read after opening');
      const listed = (await reader.client.email.list({ folder: 'inbox' })).messages.find((item) => item.id === message.id) as { read?: boolean } | undefined;
      checkEqual(listed?.read, true, 'read in the listing after opening');
    },
  },
  {
    area: 'email',
    name: "another agent's messages and attachments are 404 not_found",
    run: async ({ agent }) => {
      const alice = await agent();
      const bob = await agent();
      const mallory = await agent();
      await alice.client.email.send({ to: [bob.email], subject: 'Private', text: 'secret', attachments: [{ filename: 'a.txt', content: base64(new TextEncoder().encode('secret bytes')), content_type: 'text/plain' }] });
      const received = await inboxMessage(bob, 'Private');
      const full = await bob.client.email.get(received.id);
      await expectError("another agent's message", mallory.client.email.get(received.id), 404, 'not_found');
      await expectError("a reply to another agent's message", mallory.client.email.reply(received.id, { text: 'hi' }), 404, 'not_found');
      await expectError("another agent's attachment", mallory.client.email.downloadAttachment(full.attachments[0]!.attachment_id), 404, 'not_found');
      const listing = await mallory.client.email.list({ folder: 'inbox' });
      checkEqual(listing.messages.length, 0, "messages in a third agent's inbox");
    },
  },
  {
    area: 'email',
    name: 'attachments arrive byte for byte',
    property: true,
    run: (context) =>
      checkProperty(
        { ...context, runs: Math.min(context.runs, 10) },
        fc.asyncProperty(fc.uint8Array({ minLength: 0, maxLength: 4096 }), fc.stringMatching(/^[a-z][a-z0-9_-]{0,20}\.bin$/), async (bytes, filename) => {
          const alice = await context.agent();
          const bob = await context.agent();
          const subject = `file ${filename}`;
          await alice.client.email.send({ to: [bob.email], subject, text: 'attached', attachments: [{ filename, content: base64(bytes), content_type: 'application/octet-stream' }] });
          const full = await bob.client.email.get((await inboxMessage(bob, subject)).id);
          checkEqual(
            full.attachments.map((item) => [item.filename, item.size]),
            [[filename, bytes.length]],
            'attachment name and size',
          );
          const download = await bob.client.email.downloadAttachment(full.attachments[0]!.attachment_id);
          checkEqual(base64(download.bytes), base64(bytes), 'downloaded bytes (Base64)');
        }),
      ),
  },
  {
    area: 'email',
    name: 'inbox pages see every message once while new mail arrives',
    run: async ({ agent, target }) => {
      const owner = await agent();
      for (let index = 1; index <= 11; index++) await target.control.inboundEmail({ to: owner.email, from: 'bulk@example.com', subject: `before ${index}`, text: 'x' });
      const before = (await owner.client.email.list({ folder: 'inbox', limit: 100 })).messages.map((message) => message.id);
      checkEqual(before.length, 11, 'messages in the inbox');
      let extra = 0;
      const seen = await walkPages(
        async (cursor) => {
          const page = await owner.client.email.list({ folder: 'inbox', limit: 3, ...(cursor ? { cursor } : {}) });
          return { items: page.messages.map((message) => message.id), next: page.next_cursor };
        },
        async () => {
          await target.control.inboundEmail({ to: owner.email, from: 'bulk@example.com', subject: `during ${++extra}`, text: 'x' });
        },
      );
      checkWalk('GET /v1/email/messages?limit=3', before, seen);
    },
  },
  {
    area: 'email',
    name: 'bad sends are 400 invalid_request naming the field',
    run: async ({ agent }) => {
      const sender = await agent();
      await expectError('a send without text or html', sender.client.email.send({ to: ['x@example.com'], subject: 's' } as never), 400, 'invalid_request', 'text');
      const error = await expectError('a send to a malformed address', sender.client.email.send({ to: ['not an address'], subject: 's', text: 't' }), 400, 'invalid_request');
      check(error.param?.startsWith('to'), `the malformed address's param is ${JSON.stringify(error.param)}, expected to or to.0`);
      await expectError(
        'an attachment that is not Base64',
        sender.client.email.send({ to: ['x@example.com'], subject: 's', text: 't', attachments: [{ filename: 'a', content: '***', content_type: 'text/plain' }] }),
        400,
        'invalid_request',
        'attachments.0.content',
      );
      await expectOk('a valid send after the refused ones', sender.client.email.send({ to: ['x@example.com'], subject: 's', text: 't' }));
    },
  },
];
