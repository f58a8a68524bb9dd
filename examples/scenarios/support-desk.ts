/**
 * Support desk: customers outside the service write to the desk agents by email and SMS; each
 * agent answers every question from its knowledge base (memory search over the FAQ it was given)
 * on the channel the question came by. The invariant: no question waits more than 30 minutes.
 *
 *   agent-services scenario run examples/scenarios/support-desk.ts --report support.html
 *
 * In your own project import everything from 'agent-services' (here the scenario modules take
 * defineScenario from its own light module, so loading them does not transpile the whole source).
 */
import { defineScenario } from '../../src/scenario/define-scenario.js';
import type { PolicyContext, ScenarioEvent, WorldContext } from '../../src/index.js';
import { newMail } from './trader.js';

/** The knowledge base every desk agent starts with. */
const FAQ: ReadonlyArray<{ topic: string; answer: string }> = [
  { topic: 'refund', answer: 'Refunds: send the order number and we return the money within 5 business days.' },
  { topic: 'shipping', answer: 'Shipping: orders leave the warehouse within 24 hours and arrive in 3 to 5 days.' },
  { topic: 'password', answer: 'Password reset: use the reset link on the sign-in page; it expires after one hour.' },
  { topic: 'invoice', answer: 'Invoices: every paid order has an invoice in your account under Billing.' },
  { topic: 'cancel', answer: 'Cancel a subscription: Settings, Plan, Cancel; it runs to the end of the period.' },
  { topic: 'hours', answer: 'Opening hours: the desk answers around the clock, every day of the year.' },
];

/** Questions customers ask, by topic. */
const QUESTIONS: ReadonlyArray<{ topic: string; text: string }> = [
  { topic: 'refund', text: 'How do I get a refund for my order?' },
  { topic: 'refund', text: 'I want my money back, the refund has not arrived' },
  { topic: 'shipping', text: 'When will my order arrive? What are the shipping times?' },
  { topic: 'password', text: 'I forgot my password, how do I reset it?' },
  { topic: 'invoice', text: 'Where can I find the invoice for my paid order?' },
  { topic: 'cancel', text: 'How can I cancel my subscription plan?' },
  { topic: 'hours', text: 'What are your opening hours? Is the desk open on Sunday?' },
];

/** Longest a question may wait for its answer. */
const PATIENCE_MS = 30 * 60_000;

interface DeskState {
  since: string | null;
  seenAtSince: string[];
  /** Inbound SMS ids already answered. */
  smsSeen: string[];
  answered: number;
}

interface Question {
  desk: string;
  channel: 'email' | 'sms';
  asked_ms: number;
}

interface DeskWorld {
  /** Chance per desk and step that a customer writes. */
  rate: number;
  /** Open questions: email by thread id, SMS by `desk number|customer number`. */
  open: Record<string, Question>;
  asked: number;
  answered: number;
}

/** The best matching FAQ entry for a question, or a fallback. */
async function answerFor(context: PolicyContext<DeskState>, question: string): Promise<string> {
  const { memories } = await context.client.memory.search({ query: question.slice(0, 500), limit: 1, metadata_filter: { kind: 'faq' } });
  return memories[0]?.content ?? 'Thank you, a colleague will get back to you.';
}

async function desk(context: PolicyContext<DeskState>): Promise<void> {
  const { client, state } = context;
  for (const message of await newMail(client, state, context.nowMs)) {
    if (message.from.endsWith(`@${context.self.email.split('@')[1]}`)) continue;
    await client.email.reply(message.id, { text: await answerFor(context, `${message.subject} ${message.snippet}`) });
    state.answered += 1;
  }
  const inbound = await client.phone.listMessages({ limit: 20 });
  const seen = new Set(state.smsSeen);
  for (const sms of [...inbound.messages].reverse()) {
    if (seen.has(sms.id)) continue;
    await client.phone.sendSms({ to: sms.from, body: await answerFor(context, sms.body) });
    state.answered += 1;
    seen.add(sms.id);
  }
  // Only the newest page can hold unanswered messages; older ids can be forgotten.
  state.smsSeen = inbound.messages.map((sms) => sms.id);
}

/** A customer writes to a few desks, by email or SMS. */
async function customers(context: WorldContext<DeskWorld>): Promise<void> {
  const { sim, random, world } = context;
  for (const agent of context.directory) {
    if (!random.chance(world.rate)) continue;
    const question = random.pick(QUESTIONS);
    const customer = random.int(90);
    world.asked += 1;
    if (agent.phone_number !== null && random.chance(0.4)) {
      const from = `+1415555${String(100 + customer).padStart(4, '0')}`;
      await sim.phoneInbound({ to: agent.phone_number, from, body: question.text });
      world.open[`${agent.phone_number}|${from}`] ??= { desk: agent.name, channel: 'sms', asked_ms: context.nowMs };
    } else {
      const sent = await sim.emailInbound({ to: agent.email, from: `customer-${customer}@example.com`, subject: `Question about ${question.topic}`, text: question.text });
      world.open[sent.thread_id] = { desk: agent.name, channel: 'email', asked_ms: context.nowMs };
    }
  }
}

/** Marks the questions this step's events answered. */
function settle(world: DeskWorld, events: readonly ScenarioEvent[], numbers: Map<string, string>): void {
  for (const event of events) {
    if (event.type === 'email.sent' && typeof event.data.thread_id === 'string' && world.open[event.data.thread_id]) {
      delete world.open[event.data.thread_id];
      world.answered += 1;
    }
    if (event.type === 'sms.status_changed' && event.data.status === 'queued' && event.agent_id !== null) {
      const key = `${numbers.get(event.agent_id)}|${String(event.data.to)}`;
      if (world.open[key]) {
        delete world.open[key];
        world.answered += 1;
      }
    }
  }
}

export default defineScenario({
  name: 'support-desk',
  description: 'Customers ask by email and SMS; desk agents answer every question from memory search over their FAQ.',
  agents: 5,
  duration: '24h',
  step: '5m',
  agent: (index) => ({
    name: `desk-${index}`,
    display_name: `Support desk ${index}`,
    phone_country: 'US',
    memories: FAQ.map((entry) => ({ content: entry.answer, metadata: { kind: 'faq', topic: entry.topic } })),
    state: { since: null, seenAtSince: [], smsSeen: [], answered: 0 } as DeskState,
    policy: desk,
  }),
  world: {
    state: (): DeskWorld => ({ rate: 0.15, open: {}, asked: 0, answered: 0 }),
    step: customers,
  },
  invariants: {
    'every question is answered within 30 minutes': (context) => {
      const numbers = new Map(context.directory.map((agent) => [agent.agent_id, agent.phone_number ?? '']));
      settle(context.world, context.events, numbers);
      for (const [key, question] of Object.entries(context.world.open)) {
        if (context.nowMs - question.asked_ms > PATIENCE_MS) return `the ${question.channel} question ${key} to ${question.desk} has waited since ${new Date(question.asked_ms).toISOString()}`;
      }
      return true;
    },
  },
});
