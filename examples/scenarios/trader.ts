/**
 * The trader of the marketplace scenarios: every agent sells one good and buys from the others.
 * Deals are negotiated by email in one thread (RFQ → OFFER ↔ COUNTER → ACCEPT → INVOICE → PAID);
 * the seller issues a wallet invoice, the buyer pays it with a wallet send that names it.
 * In your own project import from 'agent-services' instead of '../../src/index.js'.
 */
import type { AgentClient, EmailSummary, PolicyContext, ScenarioAgentInfo, ScenarioRandom } from '../../src/index.js';

/** Goods and their reference prices in usd. */
export const GOODS: ReadonlyArray<{ good: string; price: number }> = [
  { good: 'widget', price: 12 },
  { good: 'gadget', price: 25 },
  { good: 'gizmo', price: 8 },
  { good: 'sprocket', price: 40 },
  { good: 'doohickey', price: 17 },
];

/** A purchase the agent is negotiating, by thread. */
interface Purchase {
  seller: string;
  good: string;
  /** Most the buyer pays, in cents. */
  max: number;
  rounds: number;
}

/** The trader's private state. */
export interface TraderState {
  good: string;
  /** Least the seller takes and what it asks first, in cents. */
  cost: number;
  list: number;
  /** Chance per step of starting a purchase. */
  appetite: number;
  /** Inbox position: messages received after `since`, minus those already handled at it. */
  since: string | null;
  seenAtSince: string[];
  buying: Record<string, Purchase>;
  /** Last price offered per thread (seller side), in cents. */
  selling: Record<string, number>;
  sold: number;
  bought: number;
  /** Restocking payments to the supplier still pending (chaos run), by transaction id → amount. */
  restocks: Record<string, string>;
}

/** Options of the trader. */
export interface TraderOptions {
  /** After a sale, pay this outside address for new stock (usdc, on-chain), retrying failed payments. */
  supplier?: string;
}

/** Opening state of a trader. */
export function traderState(random: ScenarioRandom): TraderState {
  const { good, price } = random.pick(GOODS);
  const reference = price * 100;
  return {
    good,
    cost: Math.round(reference * (0.6 + 0.3 * random.next())),
    list: Math.round(reference * (1 + 0.3 * random.next())),
    appetite: 0.01 + 0.03 * random.next(),
    since: null,
    seenAtSince: [],
    buying: {},
    selling: {},
    sold: 0,
    bought: 0,
    restocks: {},
  };
}

/** Cents to a usd amount string. */
export function usd(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

/** A usd amount string to cents. */
function cents(amount: string): number {
  const [whole, fraction = ''] = amount.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0').slice(0, 2));
}

/**
 * The messages received since the last look, oldest first. `since` is exclusive, and messages
 * can arrive later within the same instant, so the look starts 1 ms early and skips those
 * already handled.
 */
export async function newMail(client: AgentClient, state: { since: string | null; seenAtSince: string[] }, nowMs: number): Promise<EmailSummary[]> {
  const query = state.since === null ? { limit: 100 } : { limit: 100, since: new Date(Date.parse(state.since) - 1).toISOString() };
  const page = await client.email.list(query);
  const seen = new Set(state.seenAtSince);
  const fresh = page.messages.filter((message) => !seen.has(message.id)).reverse();
  const now = new Date(nowMs).toISOString();
  state.since = now;
  state.seenAtSince = page.messages.filter((message) => message.received_at === now).map((message) => message.id);
  return fresh;
}

/** The trader's policy: answer the mail, pay what was agreed, sometimes start a purchase. */
export function traderPolicy(options: TraderOptions = {}) {
  return async function trade(context: PolicyContext<TraderState>): Promise<void> {
    const { client, state, random } = context;
    if (options.supplier) await settleRestocks(client, state, options.supplier);
    for (const message of await newMail(client, state, context.nowMs)) {
      await handle(context, message, options);
    }
    if (Object.keys(state.buying).length < 3 && random.chance(state.appetite)) {
      const seller = pickSeller(context.directory, context.self, random);
      if (seller) {
        const sent = await client.email.send({ to: [seller.email], subject: `RFQ ${seller.name}`, text: 'RFQ' });
        state.buying[sent.thread_id] = { seller: seller.name, good: '', max: 0, rounds: 0 };
      }
    }
  };
}

function pickSeller(directory: readonly ScenarioAgentInfo[], self: ScenarioAgentInfo, random: ScenarioRandom): ScenarioAgentInfo | undefined {
  if (directory.length < 2) return undefined;
  const other = random.int(directory.length - 1);
  return directory[other >= self.index ? other + 1 : other];
}

async function handle(context: PolicyContext<TraderState>, message: EmailSummary, options: TraderOptions): Promise<void> {
  const { client, state, random } = context;
  const [verb = '', first = '', second = ''] = message.snippet.split(' ');
  const thread = message.thread_id;
  const reply = (text: string) => client.email.reply(message.id, { text });
  switch (verb) {
    case 'RFQ': {
      const price = Math.round(state.list * (1 + 0.2 * random.next()));
      state.selling[thread] = price;
      await reply(`OFFER ${usd(price)} ${state.good}`);
      return;
    }
    case 'OFFER': {
      const deal = state.buying[thread];
      if (!deal) return;
      const price = cents(first);
      if (deal.max === 0) {
        // The first offer names the good; the buyer values it around its reference price.
        const reference = (GOODS.find((item) => item.good === second)?.price ?? 10) * 100;
        deal.good = second;
        deal.max = Math.round(reference * (0.8 + 0.4 * random.next()));
      }
      if (price <= deal.max) {
        await reply(`ACCEPT ${usd(price)}`);
      } else if (deal.rounds < 3) {
        deal.rounds += 1;
        await reply(`COUNTER ${usd(Math.round(deal.max * (0.85 + 0.05 * deal.rounds)))}`);
      } else {
        delete state.buying[thread];
        await reply('DECLINE');
      }
      return;
    }
    case 'COUNTER': {
      const last = state.selling[thread];
      if (last === undefined) return;
      const asked = cents(first);
      if (asked >= state.cost) return invoice(context, message, asked);
      const next = Math.max(state.cost, Math.round((asked + last) / 2));
      state.selling[thread] = next;
      await reply(`OFFER ${usd(next)} ${state.good}`);
      return;
    }
    case 'ACCEPT':
      if (state.selling[thread] === undefined) return;
      return invoice(context, message, cents(first));
    case 'INVOICE': {
      const deal = state.buying[thread];
      if (!deal) return;
      delete state.buying[thread];
      const balance = await client.wallet.getBalance();
      if (cents(balance.fiat.usd) < cents(second)) {
        await reply(`CANNOT_PAY ${first}`);
        return;
      }
      const paid = await client.wallet.send({ to: deal.seller, amount: second, asset: 'usd', memo: `invoice ${first}` });
      state.bought += 1;
      await reply(`PAID ${paid.transaction_id} ${first}`);
      return;
    }
    case 'PAID': {
      if (state.selling[thread] === undefined) return;
      const received = await client.wallet.getTransaction(first);
      if (received.direction !== 'in' || received.status !== 'confirmed') return;
      delete state.selling[thread];
      state.sold += 1;
      if (options.supplier) await restock(client, state, options.supplier, received.amount);
      return;
    }
    case 'DECLINE':
    case 'CANNOT_PAY':
      delete state.selling[thread];
      return;
    default:
      return;
  }
}

async function invoice(context: PolicyContext<TraderState>, message: EmailSummary, price: number): Promise<void> {
  const { client, state } = context;
  delete state.selling[message.thread_id];
  state.selling[message.thread_id] = price;
  const created = await client.wallet.createInvoice({ to: message.from, amount: usd(price), currency: 'usd', description: `${state.good} for ${message.from}` });
  await client.email.reply(message.id, { text: `INVOICE ${created.invoice_id} ${created.amount}` });
}

/** Pays the supplier half of a sale's price in usdc, on chain, for new stock. */
async function restock(client: AgentClient, state: TraderState, supplier: string, amount: string): Promise<void> {
  const half = usd(Math.max(1, Math.floor(cents(amount) / 2)));
  const balance = await client.wallet.getBalance();
  if (Number(balance.crypto.usdc) < Number(half) + 1) return;
  const sent = await client.wallet.send({ to: supplier, amount: half, asset: 'usdc', memo: `stock of ${state.good}` });
  state.restocks[sent.transaction_id] = half;
}

/** Looks at pending restock payments: a confirmed one is done, a failed one (a fault) is sent again. */
async function settleRestocks(client: AgentClient, state: TraderState, supplier: string): Promise<void> {
  for (const [id, amount] of Object.entries(state.restocks)) {
    const record = await client.wallet.getTransaction(id);
    if (record.status === 'pending') continue;
    delete state.restocks[id];
    if (record.status === 'failed') {
      const again = await client.wallet.send({ to: supplier, amount, asset: 'usdc', memo: `stock of ${state.good} (again)` });
      state.restocks[again.transaction_id] = amount;
    }
  }
}
