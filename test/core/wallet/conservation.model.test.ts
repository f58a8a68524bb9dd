/**
 * Model-based proof of the ledger: random sequences of sends (book, on-chain, bank), funding,
 * card charges, invoice payments, injected failures and clock moves run against the runtime and
 * against a plain model. After every step the balances equal the model's exactly, none is
 * negative, and per asset the value in all wallets plus fees collected plus value sent out of the
 * service equals the value funded in; at the end every history record matches a ledger movement.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ApiError, createAgentClient, createRuntime, type AgentClient, type Runtime, type SimClient, type WalletAsset, type WalletTransaction } from '../../../src/index.js';
import { ABA, EVM_ADDRESS, IBAN, SOLANA_ADDRESS, wholeHistory } from './wallet-world.js';

const ASSETS: WalletAsset[] = ['usd', 'eur', 'usdc', 'eth', 'sol'];
const PLACES: Record<WalletAsset, number> = { usd: 2, eur: 2, usdc: 6, eth: 18, sol: 9 };
const AGENTS = ['ann', 'ben', 'cat'] as const;
type AgentName = (typeof AGENTS)[number];
const OPENING = '200';

/** DECISIONS.md's fee schedule, written out independently of the implementation. */
const FEES = {
  base: { usdc: 10_000n, eth: 5_000_000_000_000n },
  ethereum: { usdc: 500_000n, eth: 200_000_000_000_000n },
  solana: { usdc: 1_000n, sol: 5_000n },
  iban: 20n,
  aba: 25n,
};
const CONFIRM_MS = { base: 4_000, ethereum: 24_000, solana: 1_000, iban: 86_400_000, aba: 86_400_000 };

type Route = { to: string; network?: 'base' | 'ethereum' | 'solana'; rail: keyof typeof CONFIRM_MS; fee: bigint };

/** External routes per asset, with their fee in minor units. */
const EXTERNAL: Record<WalletAsset, Route[]> = {
  usd: [
    { to: IBAN, rail: 'iban', fee: FEES.iban },
    { to: ABA, rail: 'aba', fee: FEES.aba },
  ],
  eur: [{ to: IBAN, rail: 'iban', fee: FEES.iban }],
  usdc: [
    { to: EVM_ADDRESS, rail: 'base', fee: FEES.base.usdc },
    { to: EVM_ADDRESS, network: 'ethereum', rail: 'ethereum', fee: FEES.ethereum.usdc },
    { to: SOLANA_ADDRESS, rail: 'solana', fee: FEES.solana.usdc },
  ],
  eth: [
    { to: EVM_ADDRESS, rail: 'base', fee: FEES.base.eth },
    { to: EVM_ADDRESS, network: 'ethereum', rail: 'ethereum', fee: FEES.ethereum.eth },
  ],
  sol: [{ to: SOLANA_ADDRESS, rail: 'solana', fee: FEES.solana.sol }],
};

/** The shortest spelling of an amount ("12.5", "3"), to exercise the grammar as well. */
function wire(minor: bigint, asset: WalletAsset): string {
  const places = PLACES[asset];
  const digits = minor.toString().padStart(places + 1, '0');
  const whole = digits.slice(0, -places);
  const fraction = digits.slice(-places).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

function parse(text: string, asset: WalletAsset): bigint {
  const [whole, fraction = ''] = text.split('.');
  return BigInt(whole! + fraction.padEnd(PLACES[asset], '0'));
}

const zero = (): Record<WalletAsset, bigint> => ({ usd: 0n, eur: 0n, usdc: 0n, eth: 0n, sol: 0n });

interface Model {
  nowMs: number;
  balances: Record<AgentName, Record<WalletAsset, bigint>>;
  fundedIn: Record<WalletAsset, bigint>;
  fees: Record<WalletAsset, bigint>;
  sentOut: Record<WalletAsset, bigint>;
  pending: Array<{ agent: AgentName; id: string; asset: WalletAsset; amount: bigint; fee: bigint; bank: boolean; settleAt: number; fails: boolean }>;
  failNext: number;
  cards: Array<{ agent: AgentName; id: string; limit: bigint; spent: bigint }>;
}

interface Real {
  runtime: Runtime;
  sim: SimClient;
  clients: Record<AgentName, AgentClient>;
}

async function check(model: Model, real: Real): Promise<void> {
  for (const name of AGENTS) {
    const balance = await real.clients[name].wallet.getBalance();
    const flat = { ...balance.fiat, ...balance.crypto } as Record<WalletAsset, string>;
    for (const asset of ASSETS) {
      expect(parse(flat[asset], asset), `${name} ${asset}`).toBe(model.balances[name][asset]);
      expect(flat[asset].startsWith('-')).toBe(false);
    }
  }
  const ledger = (await real.sim.walletLedger()).assets;
  for (const asset of ASSETS) {
    const held = AGENTS.reduce((sum, name) => sum + model.balances[name][asset], 0n);
    expect(held + model.fees[asset] + model.sentOut[asset], `model conservation of ${asset}`).toBe(model.fundedIn[asset]);
    const totals = ledger[asset];
    expect([parse(totals.funded_in, asset), parse(totals.held, asset), parse(totals.fees_collected, asset), parse(totals.sent_out, asset)]).toEqual([model.fundedIn[asset], held, model.fees[asset], model.sentOut[asset]]);
  }
}

type WalletCommand = fc.AsyncCommand<Model, Real>;

class SendCommand implements WalletCommand {
  constructor(
    readonly from: AgentName,
    readonly to: AgentName | number,
    readonly asset: WalletAsset,
    readonly amount: bigint,
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const external = typeof this.to === 'number';
    const routes = EXTERNAL[this.asset];
    const route = external ? routes[(this.to as number) % routes.length]! : undefined;
    const fee = route?.fee ?? 0n;
    const body = { to: route?.to ?? (this.to as string), amount: wire(this.amount, this.asset), asset: this.asset, ...(route?.network ? { network: route.network } : {}) };
    const affordable = model.balances[this.from][this.asset] >= this.amount + fee && this.to !== this.from;
    try {
      const sent = await real.clients[this.from].wallet.send(body);
      expect(affordable).toBe(true);
      expect(parse(sent.fee.amount, this.asset)).toBe(fee);
      model.balances[this.from][this.asset] -= this.amount + fee;
      if (route) {
        expect(sent.status).toBe('pending');
        model.sentOut[this.asset] += this.amount;
        model.fees[this.asset] += fee;
        const fails = model.failNext > 0;
        if (fails) model.failNext--;
        model.pending.push({
          agent: this.from,
          id: sent.transaction_id,
          asset: this.asset,
          amount: this.amount,
          fee,
          bank: route.rail === 'iban' || route.rail === 'aba',
          settleAt: model.nowMs + CONFIRM_MS[route.rail],
          fails,
        });
      } else {
        expect(sent.status).toBe('confirmed');
        model.balances[this.to as AgentName][this.asset] += this.amount;
      }
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      expect(affordable, `${this.toString()}: ${error.code}`).toBe(false);
      expect(error.code).toBe(this.to === this.from ? 'invalid_recipient' : 'insufficient_funds');
    }
    await check(model, real);
  }
  toString = () => `send(${this.from}→${this.to}, ${wire(this.amount, this.asset)} ${this.asset})`;
}

class FundCommand implements WalletCommand {
  constructor(
    readonly agent: AgentName,
    readonly asset: WalletAsset,
    readonly amount: bigint,
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    await real.sim.fundWallet({ handle: this.agent, asset: this.asset, amount: wire(this.amount, this.asset) });
    model.balances[this.agent][this.asset] += this.amount;
    model.fundedIn[this.asset] += this.amount;
    await check(model, real);
  }
  toString = () => `fund(${this.agent}, ${wire(this.amount, this.asset)} ${this.asset})`;
}

class CardCommand implements WalletCommand {
  constructor(
    readonly agent: AgentName,
    readonly limit: bigint,
    readonly charges: bigint[],
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const card = await real.clients[this.agent].wallet.createCard({ limit: wire(this.limit, 'usd'), currency: 'usd' });
    for (const amount of this.charges) {
      const result = await real.sim.chargeCard(card.card_id, { amount: wire(amount, 'usd'), merchant: 'Shop' });
      const mine = model.cards.find((entry) => entry.id === card.card_id) ?? { agent: this.agent, id: card.card_id, limit: this.limit, spent: 0n };
      if (!model.cards.includes(mine)) model.cards.push(mine);
      if (mine.spent + amount > mine.limit) expect(result).toEqual({ approved: false, decline_reason: 'spending_limit' });
      else if (model.balances[this.agent].usd < amount) expect(result).toEqual({ approved: false, decline_reason: 'insufficient_funds' });
      else {
        expect(result.approved).toBe(true);
        mine.spent += amount;
        model.balances[this.agent].usd -= amount;
        model.sentOut.usd += amount;
      }
    }
    await check(model, real);
  }
  toString = () => `card(${this.agent}, limit ${wire(this.limit, 'usd')}, charges ${this.charges.map((c) => wire(c, 'usd')).join(' ')})`;
}

class InvoiceCommand implements WalletCommand {
  constructor(
    readonly agent: AgentName,
    readonly asset: 'usd' | 'eur' | 'usdc',
    readonly amount: bigint,
    readonly payTimes: number,
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const invoice = await real.clients[this.agent].wallet.createInvoice({ to: 'payer@example.com', amount: wire(this.amount, this.asset), currency: this.asset });
    for (let i = 0; i < this.payTimes; i++) {
      const paid = await real.sim.payInvoice(invoice.invoice_id, { method: (['card', 'bank_transfer', 'crypto'] as const)[i % 3]! });
      expect(paid.status).toBe('paid');
    }
    if (this.payTimes > 0) {
      model.balances[this.agent][this.asset] += this.amount;
      model.fundedIn[this.asset] += this.amount;
    }
    await check(model, real);
  }
  toString = () => `invoice(${this.agent}, ${wire(this.amount, this.asset)} ${this.asset}, paid ${this.payTimes}×)`;
}

class FailNextCommand implements WalletCommand {
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    await real.sim.addWalletFailure({ next: true });
    model.failNext++;
  }
  toString = () => 'failNext()';
}

class AdvanceCommand implements WalletCommand {
  constructor(readonly seconds: number) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    await real.runtime.sim.advance({ seconds: this.seconds });
    model.nowMs += this.seconds * 1000;
    for (const entry of model.pending.filter((p) => p.settleAt <= model.nowMs)) {
      const record = await real.clients[entry.agent].wallet.getTransaction(entry.id);
      expect(record.status).toBe(entry.fails ? 'failed' : 'confirmed');
      if (entry.fails) {
        const refund = entry.amount + (entry.bank ? entry.fee : 0n);
        model.balances[entry.agent][entry.asset] += refund;
        model.sentOut[entry.asset] -= entry.amount;
        if (entry.bank) model.fees[entry.asset] -= entry.fee;
      }
    }
    for (const entry of model.pending.filter((p) => p.settleAt > model.nowMs)) {
      expect((await real.clients[entry.agent].wallet.getTransaction(entry.id)).status).toBe('pending');
    }
    model.pending = model.pending.filter((p) => p.settleAt > model.nowMs);
    await check(model, real);
  }
  toString = () => `advance(${this.seconds}s)`;
}

/** Balance rebuilt from history alone: every record is one ledger movement. */
function balanceFromHistory(records: WalletTransaction[], asset: WalletAsset): bigint {
  let total = 0n;
  for (const record of records.filter((r) => r.asset === asset)) {
    const amount = parse(record.amount, asset);
    const fee = parse(record.fee.amount, asset);
    if (record.direction === 'in') {
      expect(fee).toBe(0n);
      if (record.status === 'confirmed') total += amount;
    } else if (record.status === 'failed') {
      total -= record.network === null ? 0n : fee;
    } else {
      total -= amount + fee;
    }
  }
  return total;
}

const amountOf = (asset: WalletAsset) => fc.bigInt({ min: 1n, max: 60n * 10n ** BigInt(PLACES[asset]) });
const agentArb = fc.constantFrom(...AGENTS);
const assetArb = fc.constantFrom(...ASSETS);

const commands = [
  fc.tuple(agentArb, fc.oneof(agentArb, fc.nat(5)), assetArb).chain(([from, to, asset]) => amountOf(asset).map((amount) => new SendCommand(from, to, asset, amount))),
  fc.tuple(agentArb, assetArb).chain(([agent, asset]) => amountOf(asset).map((amount) => new FundCommand(agent, asset, amount))),
  fc.tuple(agentArb, fc.bigInt({ min: 1n, max: 20_000n }), fc.array(fc.bigInt({ min: 1n, max: 15_000n }), { maxLength: 3 })).map(([agent, limit, charges]) => new CardCommand(agent, limit, charges)),
  fc.tuple(agentArb, fc.constantFrom('usd' as const, 'eur' as const, 'usdc' as const), fc.nat(2)).chain(([agent, asset, times]) => amountOf(asset).map((amount) => new InvoiceCommand(agent, asset, amount, times))),
  fc.constant(new FailNextCommand()),
  fc.constantFrom(0.5, 1, 4, 24, 3_600, 86_400).map((seconds) => new AdvanceCommand(seconds)),
];

async function setup(seed: number): Promise<{ model: Model; real: Real }> {
  const runtime = await createRuntime({ seed });
  const sim = runtime.simClient();
  const clients = {} as Record<AgentName, AgentClient>;
  const model: Model = {
    nowMs: 0,
    balances: { ann: zero(), ben: zero(), cat: zero() },
    fundedIn: zero(),
    fees: zero(),
    sentOut: zero(),
    pending: [],
    failNext: 0,
    cards: [],
  };
  for (const name of AGENTS) {
    const created = await sim.createAgent({ name, balances: { usd: OPENING, eur: OPENING, usdc: OPENING, eth: OPENING, sol: OPENING } });
    clients[name] = runtime.agent(created.api_key);
    for (const asset of ASSETS) {
      model.balances[name][asset] = parse(OPENING, asset);
      model.fundedIn[asset] += parse(OPENING, asset);
    }
  }
  return { model, real: { runtime, sim, clients } };
}

describe('wallet conservation (model-based)', () => {
  it('keeps every balance equal to the model, never negative, money conserved, history matching the ledger', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1_000 }), fc.commands(commands, { maxCommands: 40 }), async (seed, cmds) => {
        const { model, real } = await setup(seed);
        await fc.asyncModelRun(() => ({ model, real }), cmds);
        await real.runtime.sim.advance({ seconds: 86_400 });
        for (const name of AGENTS) {
          const history = await wholeHistory(real.clients[name]);
          expect(new Set(history.map((record) => record.id)).size).toBe(history.length);
          expect(history.every((record) => record.status !== 'pending')).toBe(true);
          const balance = await real.clients[name].wallet.getBalance();
          const flat = { ...balance.fiat, ...balance.crypto } as Record<WalletAsset, string>;
          for (const asset of ASSETS) expect(balanceFromHistory(history, asset), `${name} ${asset} from history`).toBe(parse(flat[asset], asset));
        }
      }),
      { numRuns: 40 },
    );
  });

  it('conserves money and never overdraws under any interleaving of concurrent requests (fc.scheduler)', async () => {
    const opArb = fc.record({
      from: agentArb,
      to: fc.oneof(agentArb, fc.constant('external' as const)),
      asset: fc.constantFrom<WalletAsset>('usd', 'usdc'),
      units: fc.integer({ min: 1, max: 120 }),
      fund: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.array(opArb, { minLength: 2, maxLength: 25 }), async (s, ops) => {
        const runtime = await createRuntime({ seed: 3 });
        const sim = runtime.simClient();
        const keys = {} as Record<AgentName, string>;
        for (const name of AGENTS) keys[name] = (await sim.createAgent({ name, balances: { usd: '100', usdc: '100' } })).api_key;
        // Every request yields to the scheduler before it reaches the runtime and before its answer
        // returns, so the scheduler decides the order in which requests overlap.
        const scheduled = (bearer: string | null) =>
          createAgentClient(async (route, input, options) => {
            await s.schedule(Promise.resolve(), route.id);
            const result = await runtime.dispatch({
              routeId: route.id,
              params: input.params ?? {},
              query: input.query ?? {},
              body: JSON.parse(JSON.stringify(input.body ?? {})),
              bearer,
              idempotencyKey: options?.idempotencyKey ?? null,
            });
            await s.schedule(Promise.resolve(), `${route.id} answered`);
            if (result.status >= 400) throw ApiError.fromBody(result.status, result.body);
            return result.body;
          });
        const outcomes = ops.map((op) => {
          const client = scheduled(keys[op.from]);
          if (op.fund)
            return s
              .schedule(Promise.resolve())
              .then(() => sim.fundWallet({ handle: op.from, asset: op.asset, amount: String(op.units) }))
              .then(() => 'funded');
          const to = op.to === 'external' ? (op.asset === 'usd' ? IBAN : EVM_ADDRESS) : op.to;
          return client.wallet.send({ to, amount: String(op.units), asset: op.asset }).then(
            () => 'sent',
            (error: ApiError) => error.code,
          );
        });
        const results = await s.waitFor(Promise.all(outcomes));
        for (const result of results) expect(['funded', 'sent', 'insufficient_funds', 'invalid_recipient']).toContain(result);
        const ledger = (await sim.walletLedger()).assets;
        for (const asset of ['usd', 'usdc'] as const) {
          const t = ledger[asset];
          expect(parse(t.held, asset) + parse(t.fees_collected, asset) + parse(t.sent_out, asset)).toBe(parse(t.funded_in, asset));
        }
        for (const name of AGENTS) {
          const client = runtime.agent(keys[name]);
          const balance = await client.wallet.getBalance();
          expect(balance.fiat.usd.startsWith('-') || balance.crypto.usdc.startsWith('-')).toBe(false);
          const history = await wholeHistory(client);
          expect(balanceFromHistory(history, 'usd')).toBe(parse(balance.fiat.usd, 'usd'));
          expect(balanceFromHistory(history, 'usdc')).toBe(parse(balance.crypto.usdc, 'usdc'));
        }
        const sent = results.filter((r) => r === 'sent').length;
        const outRecords = (await Promise.all(AGENTS.map((name) => wholeHistory(runtime.agent(keys[name]), { direction: 'out' })))).flat();
        expect(outRecords).toHaveLength(sent);
      }),
      { numRuns: 40 },
    );
  });
});
