import fc from 'fast-check';
import { ApiError } from '../../core/shared/api-error.js';
import type { WalletAsset, WalletBalance } from '../../core/wallet/wallet.schema.js';
import type { ConformanceAgent } from '../agents.js';
import { check, CheckFailure } from '../assert.js';
import { checkProperty } from '../property.js';
import type { ControlPlane } from '../target.js';
import type { CheckContext } from '../types.js';
import { EXTERNAL, fromMinor, toMinor } from './shared.js';

const ASSETS = ['usd', 'eur', 'usdc', 'sol'] as const satisfies readonly WalletAsset[];
type Asset = (typeof ASSETS)[number];
const LABELS = ['A', 'B', 'C'] as const;
/** Opening balances of every agent of a run, in minor units. */
const OPENING: Record<Asset, bigint> = { usd: 5_000n, eur: 2_000n, usdc: 30_000_000n, sol: 1_000_000_000n };
/** Amount ranges per asset, in minor units: about twice the opening balance, so some sends are unaffordable. */
const RANGE: Record<Asset, bigint> = { usd: 9_000n, eur: 4_000n, usdc: 50_000_000n, sol: 2_000_000_000n };
/** The outside recipient of each asset. */
const OUTSIDE: Record<Asset, string> = { usd: EXTERNAL.iban, eur: EXTERNAL.iban, usdc: EXTERNAL.evm, sol: EXTERNAL.solana };

interface Model {
  balances: Array<Record<Asset, bigint>>;
  /** Fee per outside route, learned from the first accepted send (the schedule is configurable). */
  fees: Map<Asset, bigint>;
}

interface Real {
  agents: ConformanceAgent[];
  control: ControlPlane;
}

/** Every balance of every agent equals the model and none is negative. */
async function compare(model: Model, real: Real, after: string): Promise<void> {
  for (const [index, agent] of real.agents.entries()) {
    const balance: WalletBalance = await agent.client.wallet.getBalance();
    const flat = { ...balance.fiat, ...balance.crypto } as Record<string, string>;
    for (const asset of ASSETS) {
      const text = flat[asset];
      check(typeof text === 'string' && !text.startsWith('-'), `after ${after}: ${LABELS[index]}'s ${asset} balance is ${JSON.stringify(text)} (negative or missing)`);
      const actual = toMinor(text, asset);
      const expected = model.balances[index]![asset];
      if (actual !== expected) {
        throw new CheckFailure(`after ${after}: ${LABELS[index]}'s ${asset} balance is ${fromMinor(actual, asset)}, the model says ${fromMinor(expected, asset)} (money created or lost)`);
      }
    }
  }
}

type Command = fc.AsyncCommand<Model, Real>;

/** A send between agents of the run (book transfer: fee 0, both sides change at once). */
class BookSend implements Command {
  constructor(
    readonly from: number,
    readonly to: number,
    readonly asset: Asset,
    readonly amount: bigint,
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const affordable = model.balances[this.from]![this.asset] >= this.amount;
    try {
      const sent = await real.agents[this.from]!.client.wallet.send({ to: real.agents[this.to]!.handle, amount: fromMinor(this.amount, this.asset), asset: this.asset });
      check(affordable, `${this} succeeded though the balance was ${fromMinor(model.balances[this.from]![this.asset], this.asset)}`);
      check(toMinor(sent.fee.amount, this.asset) === 0n, `${this}: a book transfer has fee 0, got ${sent.fee.amount}`);
      model.balances[this.from]![this.asset] -= this.amount;
      model.balances[this.to]![this.asset] += this.amount;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      check(!affordable, `${this} failed with ${error.status} ${error.code} though it was affordable`);
      check(error.status === 402 && error.code === 'insufficient_funds', `${this}: expected 402 insufficient_funds, got ${error.status} ${error.code}`);
    }
    await compare(model, real, this.toString());
  }
  toString = () => `wallet.send(${LABELS[this.from]}→${LABELS[this.to]}, ${fromMinor(this.amount, this.asset)} ${this.asset})`;
}

/** A send outside the service: the amount and the fee leave the balance. */
class OutsideSend implements Command {
  constructor(
    readonly from: number,
    readonly asset: Asset,
    readonly amount: bigint,
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const balance = model.balances[this.from]![this.asset];
    const knownFee = model.fees.get(this.asset);
    try {
      const sent = await real.agents[this.from]!.client.wallet.send({ to: OUTSIDE[this.asset], amount: fromMinor(this.amount, this.asset), asset: this.asset });
      const fee = toMinor(sent.fee.amount, this.asset);
      check(knownFee === undefined || fee === knownFee, `${this}: fee ${sent.fee.amount} differs from the earlier ${fromMinor(knownFee ?? 0n, this.asset)} on the same route`);
      check(balance >= this.amount + fee, `${this} succeeded though the balance ${fromMinor(balance, this.asset)} is below amount plus fee ${sent.fee.amount}`);
      model.fees.set(this.asset, fee);
      model.balances[this.from]![this.asset] -= this.amount + fee;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      check(error.status === 402 && error.code === 'insufficient_funds', `${this}: expected 402 insufficient_funds, got ${error.status} ${error.code}`);
      check(balance < this.amount + (knownFee ?? balance), `${this} was refused though the balance ${fromMinor(balance, this.asset)} covers amount plus fee`);
    }
    await compare(model, real, this.toString());
  }
  toString = () => `wallet.send(${LABELS[this.from]}→outside, ${fromMinor(this.amount, this.asset)} ${this.asset})`;
}

/** Money arriving from outside through the control plane. */
class Fund implements Command {
  constructor(
    readonly agent: number,
    readonly asset: Asset,
    readonly amount: bigint,
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    await real.control.fund({ handle: real.agents[this.agent]!.handle, asset: this.asset, amount: fromMinor(this.amount, this.asset) });
    model.balances[this.agent]![this.asset] += this.amount;
    await compare(model, real, this.toString());
  }
  toString = () => `control.fund(${LABELS[this.agent]}, ${fromMinor(this.amount, this.asset)} ${this.asset})`;
}

/** The clock moves: pending outside sends settle, and balances must not move. */
class Advance implements Command {
  constructor(readonly seconds: number) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    await real.control.advanceClock(this.seconds);
    await compare(model, real, this.toString());
  }
  toString = () => `control.advanceClock(${this.seconds})`;
}

const asset = fc.constantFrom(...ASSETS);
const agentIndex = fc.integer({ min: 0, max: LABELS.length - 1 });
const amountOf = (of: Asset) => fc.bigInt({ min: 1n, max: RANGE[of] });
const COMMANDS = [
  fc
    .tuple(agentIndex, agentIndex, asset)
    .filter(([from, to]) => from !== to)
    .chain(([from, to, of]) => amountOf(of).map((amount) => new BookSend(from, to, of, amount))),
  fc.tuple(agentIndex, asset).chain(([from, of]) => amountOf(of).map((amount) => new OutsideSend(from, of, amount))),
  fc.tuple(agentIndex, asset).chain(([to, of]) => amountOf(of).map((amount) => new Fund(to, of, amount))),
  fc.constantFrom(1, 5, 30, 86_400).map((seconds) => new Advance(seconds)),
];

/**
 * Model-based: random sequences of book sends, outside sends, funding and clock moves, compared
 * after every call with a model of the balances. fast-check shrinks a failure to the shortest
 * sequence of calls that still breaks it.
 */
export async function moneyConservation(context: CheckContext): Promise<void> {
  const opening = Object.fromEntries(ASSETS.map((of) => [of, fromMinor(OPENING[of], of)]));
  await checkProperty(
    context,
    fc.asyncProperty(fc.commands(COMMANDS, { maxCommands: 12 }), async (commands) => {
      const agents = await Promise.all(LABELS.map(() => context.agent({ balances: opening })));
      const model: Model = { balances: agents.map(() => ({ ...OPENING })), fees: new Map() };
      await fc.asyncModelRun(() => ({ model, real: { agents, control: context.target.control } }), commands);
    }),
    'shrunk calls',
  );
}
