import type { AgentClient, SimClient } from '../runtime/clients.js';
import type { BlobStore } from '../core/ports/blob-store.js';
import { createRuntime } from '../index.js';
import { MemoryBlobStore } from '../providers/blobs/memory-blob-store.js';
import type { Runtime } from '../runtime/create-runtime.js';
import type { RuntimeOptions } from '../runtime/runtime-options.js';
import type { EventRecord, LoggedEventType } from './events.js';
import { waitForEvent, type WaitForOptions } from './wait-for.js';

/** Opening state of one agent of a test world (the fields of `POST /_sim/agents` besides `name`). */
export interface AgentSpec {
  display_name?: string;
  bio?: string;
  /** Opening balances, decimal strings: `{usd: '100', usdc: '5'}`. */
  balances?: { usd?: string; eur?: string; usdc?: string; eth?: string; sol?: string };
  /** ISO 3166-1 alpha-2 country of the agent's phone number (with the phone area). */
  phone_country?: string;
}

/** Options of {@link createTestWorld}. */
export interface TestWorldOptions<Names extends string = string> {
  /** Seed of the simulated world (default 0): the same seed and calls give the same world. */
  seed?: number | string;
  /** The agents to create, in this order, by name. */
  agents?: { [Name in Names]: AgentSpec };
  /** Further runtime options (fees, memory, providers); `seed` and `blobs` are the world's own. */
  runtime?: Omit<RuntimeOptions, 'seed' | 'blobs' | 'mode'>;
}

/** What creating an agent answered, without its API key (that is in `keys`). */
export type CreatedAccount = { agent_id: string; handle: string; email: string } & Record<string, unknown>;

/** A simulated world for a test: the runtime, a client per agent and the control plane. */
export interface TestWorld<Names extends string = string> {
  readonly runtime: Runtime;
  /** Name → in-process client acting as that agent. */
  readonly agents: Readonly<Record<Names, AgentClient>>;
  /** Name → the agent's API key. */
  readonly keys: Readonly<Record<Names, string>>;
  /** Name → what creating the agent answered (agent_id, handle, email, phone_number with the phone area). */
  readonly created: Readonly<Record<Names, CreatedAccount>>;
  /** The simulation control plane (`sim.fundWallet`, `sim.advanceClock`, ...). */
  readonly sim: SimClient;
  /** Answers a request in-process exactly as the HTTP server would; a path such as `/v1/agent` is taken relative to the service. */
  fetch(input: Request | string | URL, init?: RequestInit): Promise<Response>;
  /**
   * Moves the simulated clock in steps until an event of `type`, appended after the call, satisfies
   * `predicate`, and answers it; `type` is a logged type of the event catalog, and the event's
   * `data` is typed by its schema.
   * @throws RangeError for a type the log never holds
   * @throws Error past `maxSeconds` of service time (default 3600), listing the last 20 events
   */
  waitFor<T extends LoggedEventType>(type: T, predicate?: (event: EventRecord<T>) => boolean, options?: WaitForOptions): Promise<EventRecord<T>>;
  /** Ends the world (stops its areas' long-lived work). */
  close(): Promise<void>;
}

/** How a world was made, so a fixture can make it again. */
export interface WorldOrigin {
  seed: number | string;
  runtime: Omit<RuntimeOptions, 'seed' | 'blobs' | 'mode'>;
  blobs: BlobStore;
}

const origins = new WeakMap<TestWorld<string>, WorldOrigin>();

/** How `world` was made. @throws Error when it was not made by this module */
export function originOf(world: TestWorld<string>): WorldOrigin {
  const origin = origins.get(world);
  if (!origin) throw new Error('not a TestWorld of agent-services/testing: build it with createTestWorld (or loadFixture)');
  return origin;
}

/** Wraps a runtime and its agents' credentials as a {@link TestWorld}. */
export function worldOf<Names extends string>(runtime: Runtime, accounts: Record<Names, CreatedAccount & { api_key: string }>, origin: WorldOrigin): TestWorld<Names> {
  const agents = {} as Record<Names, AgentClient>;
  const keys = {} as Record<Names, string>;
  const created = {} as Record<Names, CreatedAccount>;
  for (const name of Object.keys(accounts) as Names[]) {
    const { api_key: key, ...account }: CreatedAccount & { api_key: string } = accounts[name];
    keys[name] = key;
    created[name] = account as CreatedAccount;
    agents[name] = runtime.agent(key);
  }
  const world: TestWorld<Names> = {
    runtime,
    agents,
    keys,
    created,
    sim: runtime.simClient(),
    fetch(input, init) {
      const request = input instanceof Request && init === undefined ? input : new Request(typeof input === 'string' && input.startsWith('/') ? new URL(input, 'http://agent-services.test') : input, init);
      return runtime.fetch(request);
    },
    waitFor(type, predicate, options) {
      return waitForEvent(
        { events: async (after, limit) => (await runtime.sim.events(after, limit)) as { events: EventRecord[]; has_more: boolean }, advance: (seconds) => runtime.sim.advance({ seconds }) },
        type,
        predicate,
        options,
      );
    },
    close: () => runtime.close(),
  };
  origins.set(world, origin);
  return world;
}

/**
 * A fresh simulated world with the given agents created (in order) and their clients ready.
 * @throws ApiError 400 invalid_request for a bad agent spec, 409 already_exists for a reserved or repeated name
 */
export async function createTestWorld<const Names extends string = never>(options: TestWorldOptions<Names> = {}): Promise<TestWorld<Names>> {
  const origin: WorldOrigin = { seed: options.seed ?? 0, runtime: options.runtime ?? {}, blobs: new MemoryBlobStore() };
  const runtime = await createRuntime({ ...origin.runtime, seed: origin.seed, blobs: origin.blobs });
  const accounts = {} as Record<Names, CreatedAccount & { api_key: string }>;
  try {
    for (const [name, spec] of Object.entries(options.agents ?? {}) as Array<[Names, AgentSpec]>) {
      // Every field goes through as given, so fields of areas that are not there yet
      // (phone_country before the phone area) are refused by the service itself, not dropped.
      accounts[name] = (await runtime.createAgent({ name, ...spec } as Parameters<Runtime['createAgent']>[0])) as CreatedAccount & { api_key: string };
    }
  } catch (error) {
    await runtime.close();
    throw error;
  }
  return worldOf(runtime, accounts, origin);
}
