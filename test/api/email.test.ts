import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EmailMessage, SendEmailBody } from '../../src/index.js';
import { ISO_MS_Z, TRANSPORTS_AND_POSTGRES, bearer, expectApiError, expectErrorResponse, jsonInit, openWorld, type TestAgent, type World } from '../support/transports.js';

const b64 = (data: string | Uint8Array) => Buffer.from(data).toString('base64');

describe.each(TRANSPORTS_AND_POSTGRES)('email (%s)', (kind) => {
  let world: World;
  let alice: TestAgent;
  let bob: TestAgent;
  let carol: TestAgent;

  beforeEach(async () => {
    world = await openWorld(kind);
    alice = await world.newAgent('alice');
    bob = await world.newAgent('bob');
    carol = await world.newAgent('carol');
  });
  afterEach(() => world.close());

  /** The only message of an agent's folder. */
  async function only(agent: TestAgent, folder: 'inbox' | 'sent' = 'inbox') {
    const { messages } = await agent.client.email.list({ folder });
    expect(messages).toHaveLength(1);
    return messages[0]!;
  }

  describe('POST /v1/email/send', () => {
    it('answers 201 with exactly message_id, thread_id and sent_at', async () => {
      const response = await world.raw('/v1/email/send', jsonInit('POST', { to: ['bob@agents.test'], subject: 'Hi', text: 'Hello' }, bearer(alice.api_key)));
      expect(response.status).toBe(201);
      const body = (await response.json()) as Record<string, string>;
      expect(Object.keys(body).sort()).toEqual(['message_id', 'sent_at', 'thread_id']);
      expect(body.message_id).toMatch(/^msg_/);
      expect(body.thread_id).toMatch(/^thr_/);
      expect(body.sent_at).toMatch(ISO_MS_Z);
    });

    it("delivers straight into the recipient's inbox and keeps the sender's copy in sent, under the send's message_id", async () => {
      const sent = await alice.client.email.send({ to: ['bob@agents.test'], subject: 'Lunch?', text: 'At noon.' });
      const inbox = await only(bob);
      expect(inbox).toEqual({
        id: sent.message_id,
        thread_id: sent.thread_id,
        from: 'alice@agents.test',
        to: ['bob@agents.test'],
        subject: 'Lunch?',
        snippet: 'At noon.',
        received_at: sent.sent_at,
        has_attachments: false,
        read: false,
      });
      expect(await only(alice, 'sent')).toMatchObject({ id: sent.message_id, thread_id: sent.thread_id, read: true });
      expect((await alice.client.email.get(sent.message_id)).folder).toBe('sent');
      expect((await alice.client.email.list()).messages).toEqual([]);
    });

    it('counts a send as activity for reputation', async () => {
      const before = (await alice.client.identity.getProfile()).reputation;
      await alice.client.email.send({ to: ['bob@agents.test'], subject: 's', text: 't' });
      expect((await alice.client.identity.getProfile()).reputation).toBeGreaterThan(before);
    });

    it('writes Message-ID, Date, From, To, Cc and Subject headers, and the sender is always the own address', async () => {
      const sent = await alice.client.email.send({ to: ['bob@agents.test'], cc: ['carol@agents.test'], subject: 'Plan', html: '<p>Plan</p>' });
      const message = await bob.client.email.get(sent.message_id);
      expect(message.headers).toMatchObject({
        'Message-ID': `<${sent.message_id}@agents.test>`,
        From: 'alice@agents.test',
        To: 'bob@agents.test',
        Cc: 'carol@agents.test',
        Subject: 'Plan',
      });
      expect(Date.parse(message.headers.Date!)).toBe(Date.parse(sent.sent_at));
      expect(message).toMatchObject({ from: 'alice@agents.test', cc: ['carol@agents.test'], text: null, html: '<p>Plan</p>' });
      expect((await carol.client.email.get(sent.message_id)).headers.Cc).toBe('carol@agents.test');
    });

    it('delivers to bcc recipients without showing them in any delivered header or listing', async () => {
      const dave = await world.newAgent('dave');
      const sent = await alice.client.email.send({
        to: ['bob@agents.test'],
        cc: ['carol@agents.test'],
        bcc: ['dave@agents.test', 'eve@example.com'],
        subject: 'Secret',
        text: 'psst',
      });
      for (const agent of [bob, carol, dave]) {
        const listing = await agent.client.email.list();
        const message = await agent.client.email.get(sent.message_id);
        const seen = JSON.stringify([listing, message]);
        expect(seen).not.toContain('dave@agents.test');
        expect(seen).not.toContain('eve@example.com');
        expect(Object.keys(message.headers).map((name) => name.toLowerCase())).not.toContain('bcc');
        expect(message.bcc).toEqual([]);
        expect(message.to).toEqual(['bob@agents.test']);
      }
      // The sender's own copy remembers whom it blind-copied; outside bcc goes in the envelope only.
      expect((await alice.client.email.get(sent.message_id)).bcc).toEqual(['dave@agents.test', 'eve@example.com']);
      const [outbound] = (await world.sim.emailOutbox()).messages;
      expect(outbound!.recipients).toEqual(['eve@example.com']);
      expect(outbound!.headers).not.toHaveProperty('Bcc');
    });

    it('delivers once to an agent named in to, cc and bcc together', async () => {
      await alice.client.email.send({ to: ['bob@agents.test'], cc: ['BOB@agents.test'], bcc: ['bob+x@agents.test'], subject: 'x', text: 'y' });
      expect((await bob.client.email.list()).messages).toHaveLength(1);
    });

    it('gives mail to oneself a sent copy and an inbox copy with different ids', async () => {
      const sent = await alice.client.email.send({ to: ['alice@agents.test'], subject: 'Note to self', text: 'remember' });
      const inbox = await only(alice);
      expect(inbox.id).not.toBe(sent.message_id);
      expect(inbox.thread_id).toBe(sent.thread_id);
      expect((await alice.client.email.get(inbox.id)).folder).toBe('inbox');
      expect((await alice.client.email.get(sent.message_id)).folder).toBe('sent');
    });

    it('answers a repeat with the same Idempotency-Key with the first answer and delivers once', async () => {
      const body = { to: ['bob@agents.test'], subject: 'once', text: 'only once' };
      const first = await alice.client.email.send(body, { idempotencyKey: 'send-1' });
      const again = await alice.client.email.send(body, { idempotencyKey: 'send-1' });
      expect(again).toEqual(first);
      expect((await bob.client.email.list()).messages).toHaveLength(1);
    });

    it('accepts a subject of exactly 998 characters, counted as code points', async () => {
      const subject = '✉'.repeat(998);
      const sent = await alice.client.email.send({ to: ['bob@agents.test'], subject, text: 't' });
      expect((await bob.client.email.get(sent.message_id)).subject).toBe(subject);
    });

    it('refuses a from field with 400 invalid_request on from: the sender is always the own address', async () => {
      const forged = { to: ['bob@agents.test'], subject: 'x', text: 'y', from: 'ceo@example.com' } as SendEmailBody;
      await expectApiError(alice.client.email.send(forged), 400, 'invalid_request', 'from');
      expect((await bob.client.email.list()).messages).toEqual([]);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['no to', { subject: 's', text: 't' }, 'to'],
      ['an empty to', { to: [], subject: 's', text: 't' }, 'to'],
      ['to as a string', { to: 'bob@agents.test', subject: 's', text: 't' }, 'to'],
      ['an invalid second address', { to: ['bob@agents.test', 'not-an-address'], subject: 's', text: 't' }, 'to.1'],
      ['a display-name address', { to: ['Bob <bob@agents.test>'], subject: 's', text: 't' }, 'to.0'],
      ['an invalid cc', { to: ['bob@agents.test'], cc: ['x@'], subject: 's', text: 't' }, 'cc.0'],
      ['an invalid bcc', { to: ['bob@agents.test'], bcc: ['ok@example.com', 'a b@c.d'], subject: 's', text: 't' }, 'bcc.1'],
      ['no subject', { to: ['bob@agents.test'], text: 't' }, 'subject'],
      ['a subject of 999 characters', { to: ['bob@agents.test'], subject: 'x'.repeat(999), text: 't' }, 'subject'],
      ['a subject with a line break', { to: ['bob@agents.test'], subject: 'Hi\r\nBcc: eve@example.com', text: 't' }, 'subject'],
      ['neither text nor html', { to: ['bob@agents.test'], subject: 's' }, 'text'],
      ['null text and html', { to: ['bob@agents.test'], subject: 's', text: null, html: null }, 'text'],
      ['text that is not a string', { to: ['bob@agents.test'], subject: 's', text: 42 }, 'text'],
      ['attachment content that is not Base64', { to: ['bob@agents.test'], subject: 's', text: 't', attachments: [{ filename: 'a.txt', content: 'not base64!', content_type: 'text/plain' }] }, 'attachments.0.content'],
      [
        'attachment content with URL-safe characters',
        {
          to: ['bob@agents.test'],
          subject: 's',
          text: 't',
          attachments: [
            { filename: 'a', content: b64('ok'), content_type: 'text/plain' },
            { filename: 'b', content: '-_-_', content_type: 'text/plain' },
          ],
        },
        'attachments.1.content',
      ],
      ['an attachment without filename', { to: ['bob@agents.test'], subject: 's', text: 't', attachments: [{ content: b64('x'), content_type: 'text/plain' }] }, 'attachments.0.filename'],
      ['an attachment without content_type', { to: ['bob@agents.test'], subject: 's', text: 't', attachments: [{ filename: 'a', content: b64('x') }] }, 'attachments.0.content_type'],
      [
        'an attachment with a content_type that is not a MIME type',
        { to: ['bob@agents.test'], subject: 's', text: 't', attachments: [{ filename: 'a', content: b64('x'), content_type: 'pdf' }] },
        'attachments.0.content_type',
      ],
      ['an unknown field', { to: ['bob@agents.test'], subject: 's', text: 't', priority: 'high' }, 'priority'],
    ])('refuses %s with 400 invalid_request on its param', async (_what, body, param) => {
      const response = await world.raw('/v1/email/send', jsonInit('POST', body, bearer(alice.api_key)));
      await expectErrorResponse(response, 400, 'invalid_request', param);
      expect((await bob.client.email.list()).messages).toEqual([]);
    });

    it('refuses an address of the service with no agent with 404 recipient_not_found on its param, delivering nothing', async () => {
      await expectApiError(alice.client.email.send({ to: ['bob@agents.test'], cc: ['nobody@agents.test'], subject: 's', text: 't' }), 404, 'recipient_not_found', 'cc.0');
      expect((await bob.client.email.list()).messages).toEqual([]);
      expect((await alice.client.email.list({ folder: 'sent' })).messages).toEqual([]);
    });

    it('answers 401 without a key', async () => {
      await expectApiError(world.anonymous.email.send({ to: ['bob@agents.test'], subject: 's', text: 't' }), 401, 'unauthorized');
    });

    it('records email.sent for the sender and email.received for each recipient agent', async () => {
      const { events: before } = await world.sim.listEvents({ after: 0, limit: 1000 });
      const sent = await alice.client.email.send({ to: ['bob@agents.test'], bcc: ['carol@agents.test'], subject: 'ev', text: 't' });
      const { events } = await world.sim.listEvents({ after: before.length, limit: 1000 });
      const mail = events.filter((event) => event.type.startsWith('email.'));
      expect(mail.map((event) => [event.type, event.agent_id])).toEqual([
        ['email.sent', alice.agent_id],
        ['email.received', bob.agent_id],
        ['email.received', carol.agent_id],
      ]);
      expect(mail[1]!.data).toMatchObject({ message_id: sent.message_id, thread_id: sent.thread_id, from: 'alice@agents.test', subject: 'ev' });
    });
  });

  describe('GET /v1/email/messages', () => {
    it('walks a folder newest first in pages, each message exactly once', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 25; i++) ids.push((await alice.client.email.send({ to: ['bob@agents.test'], subject: `m${i}`, text: `${i}` })).message_id);
      const seen: string[] = [];
      let cursor: string | undefined;
      const sizes: number[] = [];
      do {
        const page = await bob.client.email.list({ limit: 10, ...(cursor ? { cursor } : {}) });
        sizes.push(page.messages.length);
        seen.push(...page.messages.map((message) => message.id));
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      expect(sizes).toEqual([10, 10, 5]);
      expect(seen).toEqual([...ids].reverse());
    });

    it('answers next_cursor null when the last page is exactly full', async () => {
      for (let i = 0; i < 4; i++) await alice.client.email.send({ to: ['bob@agents.test'], subject: `m${i}`, text: 't' });
      const first = await bob.client.email.list({ limit: 2 });
      expect(first.next_cursor).not.toBeNull();
      const second = await bob.client.email.list({ limit: 2, cursor: first.next_cursor! });
      expect(second.messages).toHaveLength(2);
      expect(second.next_cursor).toBeNull();
    });

    it('sees every message that existed when a walk began exactly once while new ones arrive', async () => {
      for (let i = 0; i < 6; i++) await alice.client.email.send({ to: ['bob@agents.test'], subject: `old${i}`, text: 't' });
      const first = await bob.client.email.list({ limit: 4 });
      await alice.client.email.send({ to: ['bob@agents.test'], subject: 'new', text: 't' });
      const second = await bob.client.email.list({ limit: 4, cursor: first.next_cursor! });
      const subjects = [...first.messages, ...second.messages].map((message) => message.subject);
      expect(subjects).toEqual(['old5', 'old4', 'old3', 'old2', 'old1', 'old0']);
      expect(second.next_cursor).toBeNull();
    });

    it('answers only messages after since, newest first, across pages', async () => {
      const times: string[] = [];
      for (let i = 0; i < 5; i++) {
        times.push((await alice.client.email.send({ to: ['bob@agents.test'], subject: `t${i}`, text: 't' })).sent_at);
        await world.sim.advanceClock({ seconds: 60 });
      }
      const page1 = await bob.client.email.list({ since: times[1]!, limit: 2 });
      expect(page1.messages.map((message) => message.subject)).toEqual(['t4', 't3']);
      const page2 = await bob.client.email.list({ since: times[1]!, limit: 2, cursor: page1.next_cursor! });
      expect(page2.messages.map((message) => message.subject)).toEqual(['t2']);
      expect(page2.next_cursor).toBeNull();
      // Strictly after: the message sent at `since` itself is not included; any zone is accepted.
      expect((await bob.client.email.list({ since: '2026-01-01T01:00:00+01:00' })).messages.map((message) => message.subject)).toEqual(['t4', 't3', 't2', 't1']);
      expect((await bob.client.email.list({ since: times[4]! })).messages).toEqual([]);
      expect((await alice.client.email.list({ folder: 'sent', since: times[3]! })).messages.map((message) => message.subject)).toEqual(['t4']);
    });

    it('filters on thread_id within the folder', async () => {
      const first = await alice.client.email.send({ to: ['bob@agents.test'], subject: 'A', text: '1' });
      await alice.client.email.send({ to: ['bob@agents.test'], subject: 'B', text: '2' });
      const { messages } = await bob.client.email.list();
      await bob.client.email.reply(messages.find((message) => message.subject === 'A')!.id, { text: 'reply' });
      const thread = await alice.client.email.list({ thread_id: first.thread_id });
      expect(thread.messages.map((message) => message.subject)).toEqual(['Re: A']);
      const sentThread = await alice.client.email.list({ folder: 'sent', thread_id: first.thread_id });
      expect(sentThread.messages.map((message) => message.subject)).toEqual(['A']);
      expect((await alice.client.email.list({ thread_id: 'thr_unknown' })).messages).toEqual([]);
    });

    it('has an empty drafts folder', async () => {
      await alice.client.email.send({ to: ['alice@agents.test'], subject: 's', text: 't' });
      expect(await alice.client.email.list({ folder: 'drafts' })).toEqual({ messages: [], next_cursor: null });
    });

    it.each<[string, string, string]>([
      ['limit 0', 'limit=0', 'limit'],
      ['limit 101', 'limit=101', 'limit'],
      ['a limit that is not a number', 'limit=ten', 'limit'],
      ['an unknown folder', 'folder=spam', 'folder'],
      ['a cursor that is not a cursor', 'cursor=garbage', 'cursor'],
      ['since that is not a timestamp', 'since=yesterday', 'since'],
      ['since without a zone', 'since=2026-01-01T00:00:00', 'since'],
      ['an unknown parameter', 'sort=asc', 'sort'],
    ])('refuses %s with 400 invalid_request', async (_what, query, param) => {
      await expectErrorResponse(await world.raw(`/v1/email/messages?${query}`, { headers: bearer(alice.api_key) }), 400, 'invalid_request', param);
    });

    it("refuses a cursor of another folder's list", async () => {
      for (let i = 0; i < 3; i++) await alice.client.email.send({ to: ['bob@agents.test'], subject: 's', text: 't' });
      const sent = await alice.client.email.list({ folder: 'sent', limit: 1 });
      await expectApiError(alice.client.email.list({ folder: 'inbox', cursor: sent.next_cursor! }), 400, 'invalid_request', 'cursor');
    });
  });

  describe('GET /v1/email/messages/{id}', () => {
    it('answers the full message and marks it read', async () => {
      const sent = await alice.client.email.send({ to: ['bob@agents.test'], subject: 'Read me', text: 'body', html: '<b>body</b>' });
      expect((await only(bob)).read).toBe(false);
      const message: EmailMessage = await bob.client.email.get(sent.message_id);
      expect(Object.keys(message).sort()).toEqual(['attachments', 'bcc', 'cc', 'folder', 'from', 'headers', 'html', 'id', 'read', 'received_at', 'subject', 'text', 'thread_id', 'to'].sort());
      expect(message).toMatchObject({ id: sent.message_id, thread_id: sent.thread_id, text: 'body', html: '<b>body</b>', read: true, attachments: [] });
      expect((await only(bob)).read).toBe(true);
      const reads = (await world.sim.listEvents({ after: 0, limit: 1000 })).events.filter((event) => event.type === 'email.read');
      expect(reads).toHaveLength(1);
      await bob.client.email.get(sent.message_id);
      expect((await world.sim.listEvents({ after: 0, limit: 1000 })).events.filter((event) => event.type === 'email.read')).toHaveLength(1);
    });

    it("answers 404 for an unknown id and for another agent's message, without marking it read", async () => {
      const sent = await alice.client.email.send({ to: ['bob@agents.test'], subject: 's', text: 't' });
      await expectApiError(bob.client.email.get('msg_doesnotexist'), 404, 'not_found');
      await expectApiError(carol.client.email.get(sent.message_id), 404, 'not_found');
      await expectApiError(carol.client.email.reply(sent.message_id, { text: 'hijack' }), 404, 'not_found');
      expect((await only(bob)).read).toBe(false);
    });
  });

  describe('POST /v1/email/messages/{id}/reply', () => {
    it('threads three replies between two agents: one thread_id, Re: once, In-Reply-To and References chained', async () => {
      const first = await alice.client.email.send({ to: ['bob@agents.test'], subject: 'Project', text: 'Kick-off?' });
      const r1 = await bob.client.email.reply(first.message_id, { text: 'Yes' });
      const r2 = await alice.client.email.reply(r1.message_id, { text: 'Monday' });
      const r3 = await bob.client.email.reply(r2.message_id, { text: 'Deal' });
      for (const reply of [r1, r2, r3]) expect(reply.thread_id).toBe(first.thread_id);

      const chain = [first, r1, r2, r3].map((sent) => `<${sent.message_id}@agents.test>`);
      const readers = [bob, alice, bob, alice];
      const messages = await Promise.all([first, r1, r2, r3].map((sent, i) => readers[i]!.client.email.get(sent.message_id)));
      expect(messages.map((message) => message.subject)).toEqual(['Project', 'Re: Project', 'Re: Project', 'Re: Project']);
      expect(messages.map((message) => message.from)).toEqual(['alice@agents.test', 'bob@agents.test', 'alice@agents.test', 'bob@agents.test']);
      expect(messages.map((message) => message.to)).toEqual([['bob@agents.test'], ['alice@agents.test'], ['bob@agents.test'], ['alice@agents.test']]);
      expect(messages.map((message) => message.thread_id)).toEqual(Array(4).fill(first.thread_id));
      expect(messages.map((message) => message.headers['Message-ID'])).toEqual(chain);
      expect(messages[0]!.headers).not.toHaveProperty('In-Reply-To');
      for (let i = 1; i < 4; i++) {
        expect(messages[i]!.headers['In-Reply-To']).toBe(chain[i - 1]);
        expect(messages[i]!.headers.References).toBe(chain.slice(0, i).join(' '));
      }
      // The whole conversation: each side's inbox and sent folders, filtered on the thread.
      for (const agent of [alice, bob]) {
        const inbox = await agent.client.email.list({ thread_id: first.thread_id });
        const sent = await agent.client.email.list({ folder: 'sent', thread_id: first.thread_id });
        expect(inbox.messages).toHaveLength(2);
        expect(sent.messages).toHaveLength(2);
      }
    });

    it("sends a reply to one's own sent message to that message's recipients", async () => {
      const sent = await alice.client.email.send({ to: ['bob@agents.test', 'carol@agents.test'], subject: 'Follow-up', text: 'first' });
      const reply = await alice.client.email.reply(sent.message_id, { text: 'bump' });
      expect((await alice.client.email.get(reply.message_id)).to).toEqual(['bob@agents.test', 'carol@agents.test']);
      for (const agent of [bob, carol]) expect((await agent.client.email.list({ thread_id: sent.thread_id })).messages).toHaveLength(2);
      expect((await alice.client.email.list()).messages).toEqual([]);
    });

    it('keeps an existing Re: of any case as it is', async () => {
      const sent = await alice.client.email.send({ to: ['bob@agents.test'], subject: 'RE: quarterly numbers', text: 't' });
      const reply = await bob.client.email.reply(sent.message_id, { text: 'ok' });
      expect((await alice.client.email.get(reply.message_id)).subject).toBe('RE: quarterly numbers');
    });

    it('answers 201 with exactly message_id, thread_id and sent_at', async () => {
      const sent = await alice.client.email.send({ to: ['bob@agents.test'], subject: 's', text: 't' });
      const response = await world.raw(`/v1/email/messages/${sent.message_id}/reply`, jsonInit('POST', { html: '<p>ok</p>' }, bearer(bob.api_key)));
      expect(response.status).toBe(201);
      const body = (await response.json()) as Record<string, string>;
      expect(Object.keys(body).sort()).toEqual(['message_id', 'sent_at', 'thread_id']);
      expect(body.thread_id).toBe(sent.thread_id);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['neither text nor html', {}, 'text'],
      ['a to field (the recipient is derived)', { text: 't', to: ['eve@example.com'] }, 'to'],
      ['a subject field (it is derived)', { text: 't', subject: 'other' }, 'subject'],
    ])('refuses %s with 400 invalid_request', async (_what, body, param) => {
      const sent = await alice.client.email.send({ to: ['bob@agents.test'], subject: 's', text: 't' });
      await expectErrorResponse(await world.raw(`/v1/email/messages/${sent.message_id}/reply`, jsonInit('POST', body, bearer(bob.api_key))), 400, 'invalid_request', param);
    });
  });

  describe('attachments', () => {
    it('serves the bytes byte-identical to the recipient and the sender at the url on {files_url}', async () => {
      const binary = new Uint8Array(randomBytes(4096));
      const sent = await alice.client.email.send({
        to: ['bob@agents.test'],
        subject: 'Files',
        text: 'see attached',
        attachments: [
          { filename: 'data.bin', content: b64(binary), content_type: 'application/octet-stream' },
          { filename: 'résumé.txt', content: b64('héllo\n'), content_type: 'text/plain; charset=utf-8' },
        ],
      });
      expect((await only(bob)).has_attachments).toBe(true);
      const message = await bob.client.email.get(sent.message_id);
      expect(message.attachments.map(({ filename, content_type, size }) => ({ filename, content_type, size }))).toEqual([
        { filename: 'data.bin', content_type: 'application/octet-stream', size: 4096 },
        { filename: 'résumé.txt', content_type: 'text/plain; charset=utf-8', size: 7 },
      ]);
      for (const attachment of message.attachments) {
        expect(Object.keys(attachment).sort()).toEqual(['attachment_id', 'content_type', 'filename', 'size', 'url']);
        expect(attachment.attachment_id).toMatch(/^att_/);
        expect(attachment.url).toBe(`${world.runtime.config.filesUrl}/attachments/${attachment.attachment_id}`);
      }
      const [first, second] = message.attachments;
      const download = await bob.client.email.downloadAttachment(first!.attachment_id);
      expect(Buffer.from(download.bytes).equals(Buffer.from(binary))).toBe(true);
      expect(download).toMatchObject({ filename: 'data.bin', content_type: 'application/octet-stream', size: 4096 });
      expect(Buffer.from((await bob.client.email.downloadAttachment(second!.attachment_id)).bytes).toString('utf8')).toBe('héllo\n');
      // The sender's sent copy carries the same attachments.
      expect((await alice.client.email.get(sent.message_id)).attachments.map((attachment) => attachment.attachment_id)).toEqual(message.attachments.map((attachment) => attachment.attachment_id));
      expect(Buffer.from((await alice.client.email.downloadAttachment(first!.attachment_id)).bytes).equals(Buffer.from(binary))).toBe(true);

      // Over the wire the url itself answers the owner's key only: 404 for anyone else, 401 without a key.
      const path = new URL(first!.url).pathname;
      const raw = await world.raw(path, { headers: bearer(bob.api_key) });
      expect(raw.status).toBe(200);
      expect(Buffer.from(await raw.arrayBuffer()).equals(Buffer.from(binary))).toBe(true);
      await expectErrorResponse(await world.raw(path, { headers: bearer(carol.api_key) }), 404, 'not_found');
      await expectErrorResponse(await world.raw(path), 401, 'unauthorized');
      if (kind === 'http') {
        const direct = await fetch(first!.url, { headers: bearer(bob.api_key) });
        expect(Buffer.from(await direct.arrayBuffer()).equals(Buffer.from(binary))).toBe(true);
      }
    });

    it("answers 404 for another agent's attachment and for an unknown one", async () => {
      const sent = await alice.client.email.send({ to: ['bob@agents.test'], subject: 's', text: 't', attachments: [{ filename: 'a.txt', content: b64('secret'), content_type: 'text/plain' }] });
      const [attachment] = (await bob.client.email.get(sent.message_id)).attachments;
      await expectApiError(carol.client.email.downloadAttachment(attachment!.attachment_id), 404, 'not_found');
      await expectApiError(bob.client.email.downloadAttachment('att_unknown'), 404, 'not_found');
    });

    it.runIf(kind !== 'in-process')('accepts a send body above the 1 MiB default (a 3 MiB attachment) and answers 413 above 35 MiB', async () => {
      const big = new Uint8Array(randomBytes(3 * 1024 * 1024));
      const sent = await alice.client.email.send({ to: ['bob@agents.test'], subject: 'big', text: 't', attachments: [{ filename: 'big.bin', content: b64(big), content_type: 'application/octet-stream' }] });
      const [attachment] = (await bob.client.email.get(sent.message_id)).attachments;
      expect(Buffer.from((await bob.client.email.downloadAttachment(attachment!.attachment_id)).bytes).equals(Buffer.from(big))).toBe(true);
      const oversized = JSON.stringify({ to: ['bob@agents.test'], subject: 'too big', text: 'x'.repeat(35 * 1024 * 1024 + 1) });
      await expectErrorResponse(await world.raw('/v1/email/send', jsonInit('POST', oversized, bearer(alice.api_key))), 413, 'payload_too_large');
      expect((await bob.client.email.list()).messages).toHaveLength(1);
    });

    it('keeps an empty attachment', async () => {
      const sent = await alice.client.email.send({ to: ['bob@agents.test'], subject: 's', text: 't', attachments: [{ filename: 'empty.txt', content: '', content_type: 'text/plain' }] });
      const [attachment] = (await bob.client.email.get(sent.message_id)).attachments;
      expect(attachment!.size).toBe(0);
      expect((await bob.client.email.downloadAttachment(attachment!.attachment_id)).bytes).toHaveLength(0);
    });
  });
});
