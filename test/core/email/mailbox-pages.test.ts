import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRuntime, type AgentClient, type EmailSummary } from '../../../src/index.js';

/** One step of a mailbox history: a send from alice to bob (new thread or a reply), then time passes. */
const Step = fc.record({ replyTo: fc.option(fc.nat(), { nil: undefined }), advance: fc.integer({ min: 0, max: 3 }) });

async function walk(client: AgentClient, query: { limit: number; since?: string; thread_id?: string }): Promise<EmailSummary[]> {
  const seen: EmailSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.email.list({ ...query, ...(cursor ? { cursor } : {}) });
    expect(page.messages.length).toBeLessThanOrEqual(query.limit);
    if (page.next_cursor) expect(page.messages).toHaveLength(query.limit);
    seen.push(...page.messages);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return seen;
}

describe('mailbox pages (model-based)', () => {
  it('walk every folder, thread and since filter newest first, each matching message exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(Step, { minLength: 1, maxLength: 25 }), fc.integer({ min: 1, max: 7 }), fc.nat(), async (steps, limit, sincePick) => {
        const runtime = await createRuntime({ seed: 5 });
        const alice = runtime.agent((await runtime.createAgent({ name: 'alice' })).api_key);
        const bob = runtime.agent((await runtime.createAgent({ name: 'bob' })).api_key);
        const model: Array<{ id: string; thread: string; at: string }> = [];
        for (const [index, step] of steps.entries()) {
          const sent =
            step.replyTo === undefined || model.length === 0
              ? await alice.email.send({ to: ['bob@agents.test'], subject: `m${index}`, text: 't' })
              : await alice.email.reply(model[step.replyTo % model.length]!.id, { text: 't' });
          model.push({ id: sent.message_id, thread: sent.thread_id, at: sent.sent_at });
          if (step.advance > 0) await runtime.sim.advance({ seconds: step.advance });
        }
        const newest = [...model].reverse();
        expect((await walk(bob, { limit })).map((message) => message.id)).toEqual(newest.map((message) => message.id));

        const since = model[sincePick % model.length]!.at;
        expect((await walk(bob, { limit, since })).map((message) => message.id)).toEqual(newest.filter((message) => message.at > since).map((message) => message.id));

        const thread = model[sincePick % model.length]!.thread;
        expect((await walk(bob, { limit, thread_id: thread })).map((message) => message.id)).toEqual(newest.filter((message) => message.thread === thread).map((message) => message.id));
        expect((await walk(alice, { limit, thread_id: thread })).map((message) => message.id)).toEqual([]);
      }),
      { numRuns: 25 },
    );
  });
});
