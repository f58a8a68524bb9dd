import { createAgentClient, createSimClient, type AgentClient, type SimClient } from '../runtime/clients.js';
import { ApiError } from '../core/shared/api-error.js';
import { parseDuration } from '../core/shared/duration.js';
import { toIso } from '../core/shared/time.js';
import { createRuntimeCore, type Runtime } from '../runtime/create-runtime.js';
import { checkScenario, DEFAULT_STEP } from './define-scenario.js';
import { RunMetrics } from './run-metrics.js';
import type { BrokenInvariant, PolicyFailure, RunOptions, ScenarioResult, StepProgress } from './run-types.js';
import { scenarioRandom, type ScenarioRandom } from './scenario-random.js';
import type { Invariant, PolicyContext, ScenarioAgent, ScenarioAgentInfo, ScenarioDefinition, ScenarioEvent, WorldContext } from './scenario-types.js';
import { TraceWriter } from './trace-writer.js';
import { tracedTransport, type CallRecord } from './traced-transport.js';

export type { BrokenInvariant, PolicyFailure, RunOptions, ScenarioResult, StepProgress } from './run-types.js';

/** Agents whose balances the report follows one by one. */
const FOLLOWED_AGENTS = 8;
/** Money samples at most (one every few steps on long runs). */
const MONEY_SAMPLES = 288;
/** Policy errors kept with their message. */
const KEPT_POLICY_ERRORS = 10;
const EVENT_PAGE = 1000;

interface RunningAgent {
  info: ScenarioAgentInfo;
  spec: ScenarioAgent<unknown>;
  client: AgentClient;
  random: ScenarioRandom;
  apiKey: string;
}

/** Amount string to a number for plotting (the trace keeps the exact strings). */
function plotted(amount: unknown): number {
  return typeof amount === 'string' ? Number(amount) : 0;
}

/**
 * Runs a scenario on a fresh simulated runtime: creates the agents, then step by step moves the
 * clock, runs the world's hook and every agent's policy (in a seeded order), and checks every
 * invariant. Stops at the first broken invariant. Everything that happens goes into the trace,
 * whose SHA-256 the result holds: the same scenario and options give the same bytes.
 * @throws TypeError or RangeError for a bad scenario or option; whatever creating an agent or the
 *   world's setup throws
 */
export async function runScenario(definition: ScenarioDefinition, options: RunOptions = {}): Promise<ScenarioResult> {
  checkScenario(definition);
  const seed = options.seed ?? definition.seed ?? 0;
  const count = options.agents ?? definition.agents;
  const duration = options.duration ?? definition.duration;
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`agents must be an integer >= 1, got ${count}`);
  const durationMs = parseDuration(duration);
  const stepMs = parseDuration(definition.step ?? DEFAULT_STEP);
  if (stepMs > durationMs) throw new RangeError(`the step (${definition.step ?? DEFAULT_STEP}) is longer than the duration (${duration})`);
  const steps = Math.ceil(durationMs / stepMs);

  const trace = new TraceWriter(options.tracePath);
  let runtime: Runtime;
  try {
    runtime = await createRuntimeCore({ seed });
  } catch (error) {
    trace.finish();
    throw error;
  }
  try {
    return await new Run(runtime, trace, definition, { seed, count, duration, durationMs, stepMs, steps }, options.onStep).go();
  } finally {
    trace.finish();
    await runtime.close();
  }
}

interface Plan {
  seed: number;
  count: number;
  duration: string;
  durationMs: number;
  stepMs: number;
  steps: number;
}

/** One run's moving parts. */
class Run {
  private readonly metrics: RunMetrics;
  private readonly startMs: number;
  private step = 0;
  private agentSteps = 0;
  private lastSeq = 0;
  private policyErrors = 0;
  private readonly firstPolicyErrors: PolicyFailure[] = [];
  private readonly agents: RunningAgent[] = [];
  private readonly world: unknown;
  private readonly worldRandom: ScenarioRandom;
  private readonly invariantRandom: ScenarioRandom;
  private readonly orderRandom: ScenarioRandom;

  constructor(
    private readonly runtime: Runtime,
    private readonly trace: TraceWriter,
    private readonly definition: ScenarioDefinition,
    private readonly plan: Plan,
    private readonly onStep: ((progress: StepProgress) => void) | undefined,
  ) {
    this.refreshNow();
    this.startMs = this.nowMs();
    this.metrics = new RunMetrics(this.startMs, plan.durationMs, plan.stepMs);
    this.world = definition.world?.state?.() ?? {};
    this.worldRandom = scenarioRandom(plan.seed, 'world');
    this.invariantRandom = scenarioRandom(plan.seed, 'invariants');
    this.orderRandom = scenarioRandom(plan.seed, 'order');
  }

  async go(): Promise<ScenarioResult> {
    const { definition, plan } = this;
    this.trace.write({
      k: 'run',
      scenario: definition.name,
      seed: plan.seed,
      agents: plan.count,
      duration: plan.duration,
      step_seconds: plan.stepMs / 1000,
      steps: plan.steps,
      start: this.now(),
    });
    await this.createAgents();
    const worldSim = this.simClient('world');
    const worldAgents = this.clientsFor('world');
    const invariantSim = this.simClient('invariant');
    const invariantAgents = this.clientsFor('invariant');
    const setup = this.definition.world?.setup;
    if (setup) {
      await setup(this.worldContext(worldSim, worldAgents, this.worldRandom, await this.takeEvents('world')));
      this.refreshNow();
    }
    let broken: BrokenInvariant | null = null;
    await this.sampleMoney();

    const sampleEvery = Math.max(1, Math.ceil(plan.steps / MONEY_SAMPLES));
    const ids = this.agents.map((_, index) => index);
    for (this.step = 1; this.step <= plan.steps; this.step++) {
      const move = Math.max(0, Math.min(plan.stepMs, this.startMs + plan.durationMs - this.nowMs()));
      await this.runtime.sim.advance({ seconds: move / 1000 });
      this.refreshNow();
      this.trace.write({ k: 'step', step: this.step, at: this.now() });
      // What fell due while the clock moved (deliveries, confirmations) comes before the step's calls.
      await this.drainEvents();
      const hook = this.definition.world?.step;
      if (hook) {
        await hook(this.worldContext(worldSim, worldAgents, this.worldRandom, await this.takeEvents('world')));
        this.refreshNow();
      }
      for (const index of this.orderRandom.shuffle(ids)) await this.runPolicy(this.agents[index]!);
      broken = await this.checkInvariants(invariantSim, invariantAgents, await this.takeEvents('invariants'));
      if (this.step % sampleEvery === 0 || this.step === plan.steps || broken) await this.sampleMoney();
      this.onStep?.({ step: this.step, steps: plan.steps, now: this.now(), agentSteps: this.agentSteps, calls: this.metrics.calls, events: this.lastSeq });
      if (broken) break;
    }
    const stepsRun = Math.min(this.step, plan.steps);
    const errors = Object.fromEntries([...this.metrics.errorTotals].sort(([a], [b]) => (a < b ? -1 : 1)));
    const eventTypes = Object.fromEntries([...this.metrics.eventTotals].sort(([a], [b]) => (a < b ? -1 : 1)));
    this.trace.write({
      k: 'end',
      at: this.now(),
      steps_run: stepsRun,
      agent_steps: this.agentSteps,
      calls: this.metrics.calls,
      events: this.lastSeq,
      policy_errors: this.policyErrors,
      errors,
      broken,
    });
    const sha256 = this.trace.finish();
    return {
      scenario: definition.name,
      description: definition.description ?? '',
      seed: plan.seed,
      agents: plan.count,
      duration: plan.duration,
      durationSeconds: plan.durationMs / 1000,
      stepSeconds: plan.stepMs / 1000,
      steps: plan.steps,
      stepsRun,
      agentSteps: this.agentSteps,
      calls: this.metrics.calls,
      events: this.lastSeq,
      errors,
      eventTypes,
      policyErrors: this.policyErrors,
      firstPolicyErrors: this.firstPolicyErrors,
      invariants: Object.keys(definition.invariants ?? {}),
      broken,
      start: toIso(this.startMs),
      end: this.now(),
      sha256,
      traceLines: this.trace.lines,
      traceBytes: this.trace.bytes,
      metrics: this.metrics.result(),
    };
  }

  private nowIso = '';
  private nowEpochMs = 0;

  /** Reads the service clock again (after it moved: only the runner and the world's hooks move it). */
  private refreshNow(): void {
    this.nowIso = this.runtime.sim.clock().now;
    this.nowEpochMs = Date.parse(this.nowIso);
  }

  private nowMs(): number {
    return this.nowEpochMs;
  }

  private now(): string {
    return this.nowIso;
  }

  private record = (call: CallRecord): Promise<void> =>
    this.inTraceOrder(async () => {
      this.metrics.call(call, this.nowMs());
      const { resultJson, ...rest } = call;
      if (resultJson === undefined) this.trace.write({ k: 'call', ...rest });
      else this.trace.writeLine(`${JSON.stringify({ k: 'call', ...rest }).slice(0, -1)},"result":${resultJson}}`);
      // The events the call appended follow it in the trace.
      await this.drainNow();
    });

  /** The tail of the trace writes that read the event log (calls with their events, drains). */
  private tracing: Promise<void> = Promise.resolve();

  /**
   * Runs `work` after every trace write that reads the event log started before it: reading the
   * log awaits the store, and two such writes running at once would trace the same events twice.
   */
  private inTraceOrder(work: () => Promise<void>): Promise<void> {
    const turn = this.tracing.then(work);
    this.tracing = turn.catch(() => {});
    return turn;
  }

  private simClient(caller: string): SimClient {
    return createSimClient(tracedTransport(this.runtime, null, caller, this.record));
  }

  /** Name → client acting as that agent for `caller`, built on first use. */
  private clientsFor(caller: string): Readonly<Record<string, AgentClient>> {
    const clients: Record<string, AgentClient> = {};
    for (const agent of this.agents) {
      let client: AgentClient | undefined;
      Object.defineProperty(clients, agent.info.name, {
        enumerable: true,
        get: () => (client ??= createAgentClient(tracedTransport(this.runtime, agent.apiKey, caller, this.record))),
      });
    }
    return Object.freeze(clients);
  }

  private async createAgents(): Promise<void> {
    const { definition, plan } = this;
    const setupRandom = scenarioRandom(plan.seed, 'setup');
    const sim = this.simClient('runner');
    const names = new Set<string>();
    for (let index = 0; index < plan.count; index++) {
      const spec = definition.agent(index, { count: plan.count, random: setupRandom }) as ScenarioAgent<unknown>;
      if (typeof spec?.policy !== 'function') throw new TypeError(`agent ${index}: policy must be an async function`);
      if (names.has(spec.name)) throw new RangeError(`agent ${index}: the name "${spec.name}" is already taken in this scenario`);
      names.add(spec.name);
      const body: Parameters<SimClient['createAgent']>[0] = { name: spec.name };
      if (spec.display_name !== undefined) body.display_name = spec.display_name;
      if (spec.bio !== undefined) body.bio = spec.bio;
      if (spec.balances !== undefined) body.balances = spec.balances;
      if (spec.phone_country !== undefined) body.phone_country = spec.phone_country;
      const created = await sim.createAgent(body);
      const info: ScenarioAgentInfo = Object.freeze({
        index,
        name: spec.name,
        agent_id: created.agent_id,
        handle: created.handle,
        email: created.email,
        phone_number: created.phone_number ?? null,
      });
      const client = createAgentClient(tracedTransport(this.runtime, created.api_key, spec.name, this.record));
      this.agents.push({ info, spec, client, random: scenarioRandom(plan.seed, `agent/${spec.name}`), apiKey: created.api_key });
      for (const memory of spec.memories ?? []) await client.memory.create(memory.metadata ? { content: memory.content, metadata: memory.metadata } : { content: memory.content });
    }
  }

  private directoryCache: readonly ScenarioAgentInfo[] | undefined;

  private get directory(): readonly ScenarioAgentInfo[] {
    return (this.directoryCache ??= Object.freeze(this.agents.map((agent) => agent.info)));
  }

  private worldContext(sim: SimClient, agents: Readonly<Record<string, AgentClient>>, random: ScenarioRandom, events: readonly ScenarioEvent[]): WorldContext<unknown> {
    return { sim, agents, directory: this.directory, world: this.world, random, step: this.step, now: this.now(), nowMs: this.nowMs(), events };
  }

  private async runPolicy(agent: RunningAgent): Promise<void> {
    const context: PolicyContext<unknown> = {
      client: agent.client,
      self: agent.info,
      directory: this.directory,
      state: agent.spec.state,
      random: agent.random,
      step: this.step,
      now: this.now(),
      nowMs: this.nowMs(),
    };
    this.agentSteps += 1;
    try {
      await agent.spec.policy(context);
    } catch (error) {
      this.policyErrors += 1;
      const message = error instanceof ApiError ? `${error.status} ${error.code}: ${error.message}` : error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      if (this.firstPolicyErrors.length < KEPT_POLICY_ERRORS) this.firstPolicyErrors.push({ agent: agent.info.name, step: this.step, message });
      this.metrics.policyError(this.nowMs());
      this.trace.write({ k: 'policy_error', step: this.step, agent: agent.info.name, message });
    }
  }

  private async checkInvariants(sim: SimClient, agents: Readonly<Record<string, AgentClient>>, events: readonly ScenarioEvent[]): Promise<BrokenInvariant | null> {
    const context = this.worldContext(sim, agents, this.invariantRandom, events);
    for (const [name, check] of Object.entries(this.definition.invariants ?? {}) as Array<[string, Invariant<unknown>]>) {
      let message: string | null;
      try {
        const outcome = await check(context);
        message = outcome === false ? 'returned false' : typeof outcome === 'string' ? outcome : null;
      } catch (error) {
        message = error instanceof Error ? `threw ${error.name}: ${error.message}` : `threw ${String(error)}`;
      }
      if (message !== null) {
        const broken: BrokenInvariant = { name, step: this.step, at: this.now(), message };
        this.metrics.invariantBroken(this.nowMs());
        this.trace.write({ k: 'invariant', ...broken });
        return broken;
      }
    }
    return null;
  }

  /** Events drained but not yet handed to the world's hooks, and to the invariants. */
  private readonly unseen: Record<'world' | 'invariants', ScenarioEvent[]> = { world: [], invariants: [] };

  /** The events appended since `who` was last handed events (the trace gets them as they are read). */
  private async takeEvents(who: 'world' | 'invariants'): Promise<ScenarioEvent[]> {
    await this.drainEvents();
    const taken = this.unseen[who];
    this.unseen[who] = [];
    return taken;
  }

  /** Writes the events appended since the last call into the trace and keeps them for the hooks. */
  private drainEvents(): Promise<void> {
    return this.inTraceOrder(() => this.drainNow());
  }

  /** {@link drainEvents} in the caller's turn. */
  private async drainNow(): Promise<void> {
    for (;;) {
      const page = await this.runtime.sim.events(this.lastSeq, EVENT_PAGE);
      for (const event of page.events as ScenarioEvent[]) {
        this.lastSeq = event.seq;
        this.metrics.event(event);
        this.trace.write({ k: 'event', ...event });
        this.unseen.world.push(event);
        this.unseen.invariants.push(event);
      }
      if (!page.has_more) return;
    }
  }

  /** Reads money for the report, straight from the runtime (not a call of the scenario, so not traced). */
  private async sampleMoney(): Promise<void> {
    const ledger = await this.read('sim.walletLedger', null);
    const assets = (ledger as { assets?: Record<string, { held: string; sent_out: string; fees_collected: string }> } | undefined)?.assets ?? {};
    const held: Record<string, number> = {};
    const sentOut: Record<string, number> = {};
    const fees: Record<string, number> = {};
    for (const [asset, totals] of Object.entries(assets)) {
      held[asset] = plotted(totals.held);
      sentOut[asset] = plotted(totals.sent_out);
      fees[asset] = plotted(totals.fees_collected);
    }
    const agents: Record<string, Record<string, number>> = {};
    for (const agent of this.agents.slice(0, FOLLOWED_AGENTS)) {
      const balance = (await this.read('wallet.getBalance', agent.apiKey)) as { fiat?: Record<string, string>; crypto?: Record<string, string> } | undefined;
      if (!balance) continue;
      const all: Record<string, number> = {};
      for (const [asset, amount] of Object.entries({ ...balance.fiat, ...balance.crypto })) all[asset] = plotted(amount);
      agents[agent.info.name] = all;
    }
    this.metrics.money({ held, sent_out: sentOut, fees, agents }, this.nowMs());
  }

  /** A read-only call answered straight by the runtime; undefined when it fails (an area that is not there). */
  private async read(routeId: string, bearer: string | null): Promise<unknown> {
    const answer = await this.runtime.dispatch({ routeId, bearer });
    return answer.status === 200 ? answer.body : undefined;
  }
}
