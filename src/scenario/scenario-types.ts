import type { AgentClient, SimClient } from '../runtime/clients.js';
import type { ScenarioRandom } from './scenario-random.js';

/** One agent of a running scenario as the others can see it. */
export interface ScenarioAgentInfo {
  /** Position in creation order (0-based). */
  readonly index: number;
  readonly name: string;
  readonly agent_id: string;
  /** `name.agents.test`. */
  readonly handle: string;
  readonly email: string;
  /** E.164 number when the agent was created with `phone_country`, else null. */
  readonly phone_number: string | null;
}

/** A memory the agent holds before the run starts (`POST /v1/memory`). */
export interface OpeningMemory {
  content: string;
  metadata?: Record<string, string>;
}

/** What a policy is handed at each step. */
export interface PolicyContext<State> {
  /** The agent's own API, in-process; every call goes into the trace. */
  readonly client: AgentClient;
  /** Who the agent is. */
  readonly self: ScenarioAgentInfo;
  /** Every agent of the run, in creation order (the agent itself included). */
  readonly directory: readonly ScenarioAgentInfo[];
  /** The agent's private state, kept from step to step (change it in place). */
  readonly state: State;
  /** The agent's own seeded stream. */
  readonly random: ScenarioRandom;
  /** Step number, from 1. */
  readonly step: number;
  /** Service time of the step, ISO 8601. */
  readonly now: string;
  /** Service time of the step, ms since the epoch. */
  readonly nowMs: number;
}

/** An agent's behaviour: called once per step, deciding from what it sees through its client. */
export type Policy<State> = (context: PolicyContext<State>) => Promise<void>;

/** Opening state and behaviour of one agent. */
export interface ScenarioAgent<State> {
  /** Lower-case handle name (`shop-7`), unique in the run. */
  name: string;
  display_name?: string;
  bio?: string;
  /** Opening balances, decimal strings: `{usd: '100'}`. */
  balances?: { usd?: string; eur?: string; usdc?: string; eth?: string; sol?: string };
  /** ISO 3166-1 alpha-2 country of a phone number to give the agent. */
  phone_country?: string;
  /** Memories created (through the agent's client) before the first step. */
  memories?: OpeningMemory[];
  /** The agent's private state at the start. */
  state: State;
  policy: Policy<State>;
}

/** What `agent(index, context)` is handed to build the opening state of agent `index`. */
export interface AgentSetupContext {
  /** Number of agents in this run (`--agents` or the scenario's default). */
  readonly count: number;
  /** The setup stream (shared by every agent's setup, drawn in index order). */
  readonly random: ScenarioRandom;
}

/** What the world's hooks and the invariants are handed. */
export interface WorldContext<World> {
  /** The control plane (`fundWallet`, `emailInbound`, `phoneInbound`, `addWalletFailure`, ...); traced. */
  readonly sim: SimClient;
  /** Name → the agent's client (traced as calls of the world or of the invariant). */
  readonly agents: Readonly<Record<string, AgentClient>>;
  readonly directory: readonly ScenarioAgentInfo[];
  /** State shared by the world's hooks and the invariants. */
  readonly world: World;
  /** The world's seeded stream (invariants get one of their own). */
  readonly random: ScenarioRandom;
  /** Step number: 0 during setup, then from 1. */
  readonly step: number;
  readonly now: string;
  readonly nowMs: number;
  /** Service events appended since the previous hook call of the same kind (setup: since the start). */
  readonly events: readonly ScenarioEvent[];
}

/** One event of the service's log, as `GET /_sim/events` answers it. */
export interface ScenarioEvent {
  seq: number;
  type: string;
  agent_id: string | null;
  at: string;
  data: Record<string, unknown>;
}

/**
 * A property checked after every step. Return `true` or nothing when it holds; `false` or a
 * message saying what is wrong when it is broken (a thrown error counts as broken too).
 */
export type Invariant<World> = (context: WorldContext<World>) => Promise<boolean | string | void> | boolean | string | void;

/** A scenario module's default export (built with `defineScenario`). */
export interface ScenarioDefinition<State = any, World = any> {
  /** Short name shown in the summary and the report. */
  name: string;
  description?: string;
  /** Agents when `--agents` is not given. */
  agents: number;
  /** Service time the run covers (`24h`, `90m`, `3600s`, `2d`) when `--duration` is not given. */
  duration: string;
  /** Service time between two steps (default `10m`). */
  step?: string;
  /** Seed when `--seed` is not given (default 0). */
  seed?: number;
  /** Opening state and policy of agent `index` (0 ≤ index < count). */
  agent(index: number, context: AgentSetupContext): ScenarioAgent<State>;
  /** The world outside the agents: shared state, a setup hook and a hook run before the agents each step. */
  world?: {
    /** The world's state at the start (default `{}`). */
    state?: () => World;
    /** Runs once after the agents were created, before the first step. */
    setup?: (context: WorldContext<World>) => Promise<void>;
    /** Runs at every step after the clock moved, before the agents' policies. */
    step?: (context: WorldContext<World>) => Promise<void>;
  };
  /** Name → property checked after every step. */
  invariants?: Record<string, Invariant<World>>;
}

/** A checked scenario, as `defineScenario` answers it. */
export type Scenario<State = any, World = any> = ScenarioDefinition<State, World> & { readonly kind: 'agent-services/scenario' };
