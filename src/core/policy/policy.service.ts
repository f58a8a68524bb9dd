import { inject, injectable } from '../shared/di.js';
import { Clock } from '../ports/clock.js';
import { EventLog } from '../ports/event-log.js';
import { Store, type StoreTransaction } from '../ports/store.js';
import { notFound } from '../shared/api-error.js';
import { toIso } from '../shared/time.js';
import { IdentityService, type AgentRecord } from '../identity/identity.service.js';
import { formatAmount, toMinorUnits } from '../wallet/amount.js';
import { DECIMALS, type Asset } from '../wallet/assets.js';
import { sentOn, WALLETS } from '../wallet/ledger.js';
import { PolicyViolation, type PolicyRule } from './policy-violation.js';
import { countryOf, domainAllowed, recipientAllowed, utcDay, type SendTarget } from './policy-rules.js';
import type { Policy, PolicyAnswer } from './policy.schema.js';

/** Where policies and the day's usage live: one record per agent, id = agent id. */
export const POLICIES = 'policies';

/** Default `timeout_seconds` of a run (DECISIONS.md, Compute). */
const DEFAULT_RUN_TIMEOUT_SECONDS = 30;

/** What an agent did in one UTC day of service time, counted for the `per_day` limits. */
export interface PolicyUsage {
  day: string;
  /** Amount sent per asset, in minor units (decimal digits), pending and confirmed sends. */
  sent: Partial<Record<Asset, string>>;
  email: number;
  sms: number;
  calls: number;
  runs: number;
}

/** The stored record: the operator's policy (null when none) and the agent's usage of the day. */
export interface PolicyRecord {
  agent_id: string;
  policy: Policy | null;
  updated_at: string | null;
  usage: PolicyUsage;
}

/** A send about to be debited, as the policy sees it. */
export interface GuardedSend extends SendTarget {
  asset: Asset;
  amount: bigint;
  /** The chain actually used (the default included), null for book transfers and bank sends. */
  network: string | null;
}

/** One recipient of a message and the request field that named it (`to.0`, `cc.1`). */
export interface GuardedAddress {
  address: string;
  param: string;
}

/** The daily counters of messages and runs, by usage field. */
type Counter = 'email' | 'sms' | 'calls' | 'runs';

/**
 * Policies: the guardrails an operator sets per agent (DECISIONS.md, Policies). Each guarded
 * action calls a `check…` method inside its own store transaction: it locks the agent's policy
 * record (after any wallet locks, so lock order is the same everywhere), reads the policy and the
 * day's usage, throws {@link PolicyViolation} when the action breaks a rule, and otherwise counts
 * the action in the same transaction. Two concurrent requests therefore cannot both pass a
 * `per_day` limit, and a refusal rolls the whole action back. {@link enforced} turns a refusal into
 * the `policy.violated` event, appended in its own transaction once the action was undone.
 *
 * Messages, calls and runs are counted whether or not a policy is set, so a policy set at noon
 * counts the morning's ("what was accepted that day"). Sends are counted in the record only while
 * a policy is set: when one is set on a record without one, the day's sends are read from the
 * wallet's history ({@link sentOn}) under the sender's wallet lock, which every send holds too.
 * A send of an agent without a policy therefore reads the record and writes nothing.
 */
@injectable()
export class PolicyService {
  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    @inject(EventLog) private readonly events: EventLog,
    @inject(IdentityService) private readonly identity: IdentityService,
  ) {}

  /** The agent's policy (`{policy: null}` when none). */
  async show(agentId: string): Promise<PolicyAnswer> {
    return { policy: (await this.store.view.get<PolicyRecord>(POLICIES, agentId))?.policy ?? null };
  }

  /** Replaces the agent's policy with `policy`; it applies from the next request. */
  async set(agentId: string, policy: Policy): Promise<PolicyAnswer> {
    await this.store.transaction(async (tx) => {
      // The wallet first (the lock order of sends): no send of the agent runs while the day's sends are read.
      await tx.lock(WALLETS, [agentId]);
      const { record, usage } = await this.open(tx, agentId);
      const counted = record?.policy ? usage : { ...usage, sent: minorTexts(await sentOn(tx, agentId, usage.day)) };
      await this.write(tx, record, { agent_id: agentId, policy, updated_at: toIso(this.clock.now()), usage: counted });
      await this.events.append(tx, { type: 'policy.updated', agent_id: agentId, data: { policy: policy as Record<string, unknown> } });
    });
    return { policy };
  }

  /** Removes the agent's policy (nothing when it has none); the day's usage stays counted. */
  async remove(agentId: string): Promise<void> {
    await this.store.transaction(async (tx) => {
      const { record, usage } = await this.open(tx, agentId);
      if (!record?.policy) return;
      await this.write(tx, record, { agent_id: agentId, policy: null, updated_at: toIso(this.clock.now()), usage });
      await this.events.append(tx, { type: 'policy.removed', agent_id: agentId, data: {} });
    });
  }

  /** The agent a control-plane path names (`/_sim/agents/{name}`). @throws ApiError 404 not_found */
  async agentNamed(name: string): Promise<AgentRecord> {
    const agent = await this.identity.findByHandle(name);
    if (!agent) throw notFound('agent');
    return agent;
  }

  /** The agent an admin path names (`/admin/v1/agents/{agent_id}`). @throws ApiError 404 not_found */
  agentWithId(agentId: string): Promise<AgentRecord> {
    return this.identity.agent(agentId);
  }

  /**
   * Runs a guarded action of `routeId`. When it is refused by the policy, the action's own
   * transaction has rolled back; the refusal is logged (`policy.violated {rule, route_id, param}`)
   * in a transaction of its own and the 403 is rethrown.
   * @throws ApiError 403 policy_violation, and whatever the action throws
   */
  enforced<T>(agentId: string, routeId: string, action: () => Promise<T>): Promise<T> {
    let running: Promise<T>;
    try {
      running = action();
    } catch (error) {
      running = Promise.reject(error);
    }
    // A handler on the promise rather than an async frame around it: every send passes here.
    return running.catch(async (error: unknown) => {
      if (error instanceof PolicyViolation) await this.store.transaction((tx) => this.logViolation(tx, agentId, routeId, error));
      throw error;
    });
  }

  /**
   * Checks a send (book transfer, chain or bank send) against the wallet rules and counts it in
   * the day's total of its asset, when the agent has a policy. Call it in the send's transaction,
   * after the sender's wallet is locked: that lock, which every writer of the day's sends holds,
   * orders sends and the setting of a policy; a message counted in the same record meanwhile makes
   * the write conflict (the transaction runs again), as the record is read unlocked.
   * @throws PolicyViolation (403 policy_violation) on `to`, `network` or `amount`
   */
  async checkSend(tx: StoreTransaction, agentId: string, send: GuardedSend): Promise<void> {
    // The hot path of every send: one read, and a write only under a policy, no helper frames.
    const record = await tx.get<PolicyRecord>(POLICIES, agentId);
    if (!record?.policy) return;
    const usage = this.today(record);
    const rules = record.policy.wallet;
    const used = BigInt(usage.sent[send.asset] ?? '0');
    if (rules) {
      if (rules.recipients && !recipientAllowed(rules.recipients, send)) {
        throw new PolicyViolation('wallet.recipients', 'to', `to: "${send.to}" is not among the policy's allowed recipients (${listed(rules.recipients)})`);
      }
      if (rules.networks && send.network !== null && !rules.networks.includes(send.network as never)) {
        throw new PolicyViolation('wallet.networks', 'network', `network: ${send.network} is not among the policy's allowed networks (${listed(rules.networks)})`);
      }
      const single = limitOf(rules.per_transaction?.[send.asset], send.asset);
      if (single !== undefined && send.amount > single) {
        throw new PolicyViolation('wallet.per_transaction', 'amount', `amount: ${shownAmount(send.amount, send.asset)} is over the per-transaction limit of ${shownAmount(single, send.asset)}`);
      }
      const daily = limitOf(rules.per_day?.[send.asset], send.asset);
      if (daily !== undefined && used + send.amount > daily) {
        throw new PolicyViolation(
          'wallet.per_day',
          'amount',
          `amount: ${shownAmount(send.amount, send.asset)} would take today's sends to ${shownAmount(used + send.amount, send.asset)}, over the per-day limit of ${shownAmount(daily, send.asset)} (UTC day ${usage.day})`,
        );
      }
    }
    await tx.update<PolicyRecord>(POLICIES, agentId, { ...record, usage: { ...usage, sent: { ...usage.sent, [send.asset]: (used + send.amount).toString() } } });
  }

  /**
   * Takes a failed send back out of its day's total (failed sends do not count); nothing when the
   * send's day is over, or no policy counts sends. Call it in the transaction that returns the
   * amount, after the sender's wallet is locked (as {@link checkSend}).
   */
  async sendFailed(tx: StoreTransaction, agentId: string, asset: Asset, amount: bigint, sentAtIso: string): Promise<void> {
    const record = await tx.get<PolicyRecord>(POLICIES, agentId);
    if (!record?.policy || record.usage.day !== sentAtIso.slice(0, 10)) return;
    const used = BigInt(record.usage.sent[asset] ?? '0') - amount;
    await tx.update<PolicyRecord>(POLICIES, agentId, { ...record, usage: { ...record.usage, sent: { ...record.usage.sent, [asset]: (used > 0n ? used : 0n).toString() } } });
  }

  /**
   * A card charge above the policy's per-transaction usd limit: answers true (decline it with
   * `decline_reason: "policy"`) and appends `policy.violated` in `tx`, which commits the decline.
   */
  async declinesCharge(tx: StoreTransaction, agentId: string, amount: bigint, routeId: string): Promise<boolean> {
    await tx.lock(POLICIES, [agentId]);
    const single = limitOf((await tx.get<PolicyRecord>(POLICIES, agentId))?.policy?.wallet?.per_transaction?.usd, 'usd');
    if (single === undefined || amount <= single) return false;
    const violation = new PolicyViolation('wallet.per_transaction', 'amount', `amount: ${shownAmount(amount, 'usd')} is over the per-transaction limit of ${shownAmount(single, 'usd')}`);
    await this.logViolation(tx, agentId, routeId, violation);
    return true;
  }

  /**
   * Checks a message against the email rules on committed state, without counting it: the email
   * service asks before it stores the attachments' bytes, so a refused message leaves none
   * (the transaction that sends it asks again, and counts).
   * @throws PolicyViolation (403 policy_violation) on a recipient outside the domains, or `to` for the daily count
   */
  async precheckEmail(agentId: string, recipients: readonly GuardedAddress[]): Promise<void> {
    const record = await this.store.view.get<PolicyRecord>(POLICIES, agentId);
    if (!record?.policy?.email) return;
    checkDomains(record.policy, recipients);
    const usage = this.today(record);
    overLimit(usage, 'email', record.policy.email.per_day, 'email.per_day', 'to', 'messages');
  }

  /**
   * Checks a message (a send or a reply) against the email rules and counts it.
   * @throws PolicyViolation (403 policy_violation) on a recipient (`to.N`, `cc.N`, `bcc.N`) or `to`
   */
  async checkEmail(tx: StoreTransaction, agentId: string, recipients: readonly GuardedAddress[]): Promise<void> {
    const { record, usage } = await this.open(tx, agentId);
    checkDomains(record?.policy, recipients);
    await this.count(tx, agentId, record, usage, 'email', record?.policy?.email?.per_day, 'email.per_day', 'to', 'messages');
  }

  /**
   * Checks an SMS or a call against the phone rules (destination country, daily count) and counts it.
   * @throws PolicyViolation (403 policy_violation) on `to`
   */
  async checkPhone(tx: StoreTransaction, agentId: string, kind: 'sms' | 'calls', to: string): Promise<void> {
    const { record, usage } = await this.open(tx, agentId);
    const rules = record?.policy?.phone;
    if (rules?.countries) {
      const country = countryOf(to);
      if (country === null || !rules.countries.includes(country)) {
        throw new PolicyViolation('phone.countries', 'to', `to: ${to} is in ${country ?? 'no country'}, not among the policy's allowed countries (${listed(rules.countries)})`);
      }
    }
    const limit = kind === 'sms' ? rules?.sms_per_day : rules?.calls_per_day;
    await this.count(tx, agentId, record, usage, kind, limit, kind === 'sms' ? 'phone.sms_per_day' : 'phone.calls_per_day', 'to', kind === 'sms' ? 'SMS' : 'calls');
  }

  /**
   * Checks a run against the compute rules on committed state, without counting it, and answers
   * the timeout it runs with: the one asked for, or without one the smaller of 30 and the
   * policy's `max_timeout_seconds`. Nothing is locked: a run may last minutes, and a lock held
   * that long (inside a keyed request's unit, until its commit) would stall the agent's sends.
   * The transaction that keeps the run's outcome counts it ({@link countRun}).
   * @throws PolicyViolation (403 policy_violation) on `timeout_seconds` or `code`
   */
  async precheckRun(agentId: string, timeoutSeconds: number | undefined): Promise<number> {
    const record = await this.store.view.get<PolicyRecord>(POLICIES, agentId);
    const rules = record?.policy?.compute;
    const ceiling = rules?.max_timeout_seconds;
    if (ceiling !== undefined && timeoutSeconds !== undefined && timeoutSeconds > ceiling) {
      throw new PolicyViolation('compute.max_timeout_seconds', 'timeout_seconds', `timeout_seconds: ${timeoutSeconds} is over the policy's max_timeout_seconds of ${ceiling}`);
    }
    const timeout = timeoutSeconds ?? Math.min(DEFAULT_RUN_TIMEOUT_SECONDS, ceiling ?? DEFAULT_RUN_TIMEOUT_SECONDS);
    if (timeout < 1) throw new PolicyViolation('compute.max_timeout_seconds', 'timeout_seconds', `timeout_seconds: the policy's max_timeout_seconds of ${ceiling} forbids every run`);
    overLimit(this.today(record), 'runs', rules?.runs_per_day, 'compute.runs_per_day', 'code', 'runs');
    return timeout;
  }

  /**
   * Counts a finished run in the transaction that keeps its outcome, checking the daily count
   * again under the lock: of runs that started together near the limit, those past it when they
   * end are refused then, and nothing of them is kept.
   * @throws PolicyViolation (403 policy_violation) on `code`
   */
  async countRun(tx: StoreTransaction, agentId: string): Promise<void> {
    const { record, usage } = await this.open(tx, agentId);
    await this.count(tx, agentId, record, usage, 'runs', record?.policy?.compute?.runs_per_day, 'compute.runs_per_day', 'code', 'runs');
  }

  /**
   * Checks that one more memory fits the policy's `max_memories`; `stored(cap)` counts the agent's
   * memories stored with `POST /v1/memory`, read in `tx` (asked only when a cap is set; exact from
   * `cap` on). The
   * policy record is locked, so concurrent stores of one agent are counted one after another.
   * @throws PolicyViolation (403 policy_violation) on `content`
   */
  async checkMemory(tx: StoreTransaction, agentId: string, stored: (cap: number) => Promise<number>): Promise<void> {
    await tx.lock(POLICIES, [agentId]);
    const cap = (await tx.get<PolicyRecord>(POLICIES, agentId))?.policy?.memory?.max_memories;
    if (cap === undefined) return;
    const count = await stored(cap);
    if (count + 1 > cap) throw new PolicyViolation('memory.max_memories', 'content', `content: the agent already stores ${count} memories; the policy's max_memories is ${cap}`);
  }

  /** Locks and reads the agent's record, with the usage of today (a new day starts from zero). */
  private async open(tx: StoreTransaction, agentId: string): Promise<{ record: PolicyRecord | undefined; usage: PolicyUsage }> {
    await tx.lock(POLICIES, [agentId]);
    const record = await tx.get<PolicyRecord>(POLICIES, agentId);
    return { record, usage: this.today(record) };
  }

  /** The record's usage if it is today's, else a fresh day at zero. */
  private today(record: PolicyRecord | undefined): PolicyUsage {
    const day = utcDay(this.clock.now());
    return record && record.usage.day === day ? record.usage : { day, sent: {}, email: 0, sms: 0, calls: 0, runs: 0 };
  }

  /** Checks a daily count against its limit, then counts one more. */
  private async count(
    tx: StoreTransaction,
    agentId: string,
    record: PolicyRecord | undefined,
    usage: PolicyUsage,
    counter: Counter,
    limit: number | undefined,
    rule: PolicyRule,
    param: string,
    what: string,
  ): Promise<void> {
    overLimit(usage, counter, limit, rule, param, what);
    await this.write(tx, record, { ...(record ?? this.blank(agentId)), usage: { ...usage, [counter]: usage[counter] + 1 } });
  }

  private blank(agentId: string): PolicyRecord {
    return { agent_id: agentId, policy: null, updated_at: null, usage: { day: utcDay(this.clock.now()), sent: {}, email: 0, sms: 0, calls: 0, runs: 0 } };
  }

  private async write(tx: StoreTransaction, previous: PolicyRecord | undefined, next: PolicyRecord): Promise<void> {
    if (previous) await tx.update(POLICIES, next.agent_id, next);
    else await tx.insert(POLICIES, next.agent_id, next);
  }

  private async logViolation(tx: StoreTransaction, agentId: string, routeId: string, violation: PolicyViolation): Promise<void> {
    await this.events.append(tx, { type: 'policy.violated', agent_id: agentId, data: { rule: violation.rule, route_id: routeId, param: violation.param ?? null } });
  }
}

/** @throws PolicyViolation when one more would take the day's `counter` past `limit` */
function overLimit(usage: PolicyUsage, counter: Counter, limit: number | undefined, rule: PolicyRule, param: string, what: string): void {
  if (limit !== undefined && usage[counter] + 1 > limit) {
    throw new PolicyViolation(rule, param, `${param}: ${usage[counter]} ${what} were already accepted today (UTC day ${usage.day}); the policy's limit is ${limit} per day`);
  }
}

/** @throws PolicyViolation on the first recipient outside the policy's mail domains */
function checkDomains(policy: Policy | null | undefined, recipients: readonly GuardedAddress[]): void {
  const domains = policy?.email?.recipient_domains;
  if (!domains) return;
  for (const { address, param } of recipients) {
    if (!domainAllowed(domains, address)) {
      throw new PolicyViolation('email.recipient_domains', param, `${param}: ${address} is outside the policy's allowed domains (${listed(domains)})`);
    }
  }
}

/** A policy amount (validated at the asset's precision when set) in minor units, or undefined. */
function limitOf(text: string | undefined, asset: Asset): bigint | undefined {
  if (text === undefined) return undefined;
  const key = `${asset}:${text}`;
  let minor = parsedLimits.get(key);
  if (minor === undefined) {
    const parsed = toMinorUnits(text, DECIMALS[asset]);
    if (typeof parsed !== 'bigint') return undefined;
    if (parsedLimits.size >= 1_000) parsedLimits.clear();
    parsedLimits.set(key, (minor = parsed));
  }
  return minor;
}

/** Limits already parsed: a policy's few amounts are read on every send. */
const parsedLimits = new Map<string, bigint>();

/** `150.00 usd`. */
function shownAmount(minor: bigint, asset: Asset): string {
  return `${formatAmount(minor, asset)} ${asset}`;
}

/** A short list for a message: the first few entries. */
function listed(values: readonly string[]): string {
  if (values.length === 0) return 'none';
  return values.length <= 5 ? values.join(', ') : `${values.slice(0, 5).join(', ')}, ... ${values.length - 5} more`;
}

/** Amounts in minor units as the record keeps them (decimal digits). */
function minorTexts(amounts: Partial<Record<Asset, bigint>>): Partial<Record<Asset, string>> {
  return Object.fromEntries(Object.entries(amounts).map(([asset, minor]) => [asset, minor.toString()]));
}
