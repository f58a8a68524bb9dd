import { timingSafeEqual } from 'node:crypto';
import { Container } from 'inversify';
import { BlobStore } from '../core/ports/blob-store.js';
import { Clock } from '../core/ports/clock.js';
import { ControllableClock, isControllableClock } from '../core/ports/controllable-clock.js';
import { EventLog } from '../core/ports/event-log.js';
import { IssuerKeys } from '../core/ports/issuer-keys.js';
import type { Persistence } from '../core/ports/persistence.js';
import { Random } from '../core/ports/random.js';
import { Store, type StoreView } from '../core/ports/store.js';
import { ApiError } from '../core/shared/api-error.js';
import { Dispatcher, type DispatchRequest, type DispatchResult } from '../core/api/dispatcher.js';
import { parseInput } from '../core/api/validation.js';
import { createAdminClient, createAgentClient, createSimClient, type AdminClient, type AgentClient, type SimClient } from './clients.js';
import { RuntimeSnapshot } from '../core/control/control.schema.js';
import type { CreatedAgent } from '../core/identity/identity.schema.js';
import { SimCreateAgentBody } from './agent-creation.js';
import { IdentityService } from '../core/identity/identity.service.js';
import { IdempotencyKeys } from '../core/services/idempotency.js';
import { JOBS, Scheduler, type Job } from '../core/services/scheduler.js';
import { ServiceConfig } from '../core/shared/service-config.js';
import { parseDuration } from '../core/shared/duration.js';
import { CryptoRandom } from '../providers/random/crypto-random.js';
import { Ed25519IssuerKeys } from '../providers/keys/ed25519-issuer-keys.js';
import { MemoryStore } from '../providers/store/memory-store.js';
import { requestDeadlines } from './request-deadlines.js';
import { MemoryBlobStore } from '../providers/blobs/memory-blob-store.js';
import { StoreEventLog } from '../providers/events/store-event-log.js';
import { SystemClock } from '../providers/clock/system-clock.js';
import { DEFAULT_START_TIME, SimClock } from '../sim/sim-clock.js';
import { SeededRandom } from '../sim/seeded-random.js';
import { AREAS } from './areas/index.js';
import { startAreas } from './areas/start-areas.js';
import { resolveFileOptions } from './file-options.js';
import type { AreaContext, AreaEdge, ListeningEdge } from './areas/area-module.js';
import { HttpClient } from '../core/ports/http-client.js';
import { FetchHttpClient } from '../providers/http/fetch-http-client.js';
import { controlHandlers } from './control.handlers.js';
import { adminHandlers } from './admin/admin.handlers.js';
import { AgentAdmin } from '../core/identity/agent-admin.service.js';
import { CardService } from '../core/wallet/card.service.js';
import type { CardSecret } from '../core/ports/card-vault.js';
import { Faults } from '../core/ports/faults.js';
import { FaultingStore } from './faults/faulting-store.js';
import { withRequestContext } from './faults/request-context.js';
import { FaultsGate } from './faults/faults-gate.js';
import { GroupCommit } from './group-commit.js';
import { inProcessTransport } from './in-process-transport.js';
import type { RuntimeOptions } from './runtime-options.js';
import { ServiceUrls } from './service-urls.js';
import { SimControl } from './sim-control.js';
import { TransactionTimes } from './operations/transaction-times.js';
import { checkReadiness, readinessChecks, type Readiness, type ReadinessCheck } from './operations/readiness.js';
import { storeWithTransaction } from './operations/store-with-transaction.js';

/** Where the identity area keeps agents (read by {@link Runtime.actAs}). */
const AGENTS_COLLECTION = 'agents';

/** Answers a WHATWG request; built by the HTTP layer for a runtime. */
export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * One running world: the services, the simulated or real providers, the control plane and the
 * ways in (in-process clients, `fetch`, and through `serve`, a socket).
 */
export class Runtime {
  /** The simulation control plane. */
  readonly sim: SimControl;
  /** Resolved names and URLs. */
  readonly config: ServiceUrls;
  /** `simulated` or `live`. */
  readonly mode: 'simulated' | 'live';
  /** Largest accepted request body in bytes. */
  readonly maxBodyBytes: number;
  /** Who reaches the control plane: anyone (`open`, simulation), a bearer of the admin token (`token`), or nobody (`hidden`, live without a token). */
  readonly adminAccess: 'open' | 'token' | 'hidden';
  private readonly dispatcher: Dispatcher;
  private fetchHandler: FetchHandler | undefined;

  /** @internal use {@link createRuntimeCore} or the package's `createRuntime`. */
  constructor(
    private readonly parts: {
      options: RuntimeOptions;
      config: ServiceUrls;
      dispatcher: Dispatcher;
      sim: SimControl;
      saver: GroupCommit | null;
      store: Store;
      edges: AreaEdge[];
      /** What `GET /readyz` asks: the store and each configured real provider. */
      readinessChecks: ReadinessCheck[];
      /** Shows a new card's details once (the dashboard's card page). */
      revealCard: (cardId: string) => Promise<CardSecret | null>;
      /** Times the store's transactions for whoever asks (metrics). */
      transactionTimes: TransactionTimes;
      /** Aborts every call's signal, then stops the areas in reverse order. */
      stopAreas: () => Promise<void>;
    },
  ) {
    this.sim = parts.sim;
    this.config = parts.config;
    this.dispatcher = parts.dispatcher;
    this.mode = parts.options.mode ?? 'simulated';
    this.maxBodyBytes = parts.options.maxBodyBytes ?? 1024 * 1024;
    this.adminAccess = parts.options.adminToken !== undefined ? 'token' : this.mode === 'simulated' ? 'open' : 'hidden';
  }

  /**
   * Creates an agent and answers its credentials; the API key is shown only here.
   * @throws ApiError 400 invalid_request, 409 already_exists
   */
  createAgent(body: SimCreateAgentBody): Promise<CreatedAgent> {
    return this.sim.createAgent(parseInput(SimCreateAgentBody, body));
  }

  /** An in-process client acting as the agent that owns `apiKey`. */
  agent(apiKey: string): AgentClient {
    return createAgentClient(inProcessTransport(this.dispatcher, apiKey));
  }

  /**
   * An in-process client acting as the agent `agentId` without its API key, for operator tools
   * such as the dashboard: it reads what the agent's own key would. Nothing on the wire reaches it.
   * @throws ApiError 404 not_found for an agent id this world does not have
   */
  async actAs(agentId: string): Promise<AgentClient> {
    if ((await this.parts.store.view.get(AGENTS_COLLECTION, agentId)) === undefined) throw new ApiError('not_found', 'no such agent');
    return createAgentClient(inProcessTransport(this.dispatcher, null, agentId));
  }

  /** Read access to the committed records, for operator tools that show what no route lists (the agents of the world). */
  get view(): StoreView {
    return this.parts.store.view;
  }

  /** An in-process client without a key, for public endpoints. */
  anonymous(): AgentClient {
    return createAgentClient(inProcessTransport(this.dispatcher, null));
  }

  /**
   * Whether `bearer` may read operator pages (`/metrics`): anyone when no admin token is
   * configured, else only a bearer of it (compared in constant time).
   */
  adminBearerAllowed(bearer: string | null): boolean {
    const token = this.parts.options.adminToken;
    return token === undefined || (bearer !== null && constantTimeEquals(bearer, token));
  }

  /**
   * A card's full number, CVV, expiry and billing address the first time they are asked for after
   * its creation, then null: for the operator's dashboard only (no API route, event, log line or
   * snapshot holds them in clear).
   */
  revealCardOnce(cardId: string): Promise<CardSecret | null> {
    return this.parts.revealCard(cardId);
  }

  /** An in-process client of the operator's API `/admin/v1` (passes the admin token when one is set). */
  adminClient(): AdminClient {
    return createAdminClient(inProcessTransport(this.dispatcher, this.parts.options.adminToken ?? null));
  }

  /** An in-process client of the control plane (passes the admin token when one is set). */
  simClient(): SimClient {
    return createSimClient(inProcessTransport(this.dispatcher, this.parts.options.adminToken ?? null));
  }

  /** Answers one transport-neutral request (the HTTP shim's entry). */
  dispatch(request: DispatchRequest): Promise<DispatchResult> {
    return this.dispatcher.dispatch(request);
  }

  /** Every route, for the HTTP shim and the OpenAPI document. */
  routes() {
    return this.dispatcher.definitions();
  }

  /** Answers a WHATWG `Request` in-process, exactly as the HTTP server would. */
  fetch(request: Request): Promise<Response> {
    if (!this.fetchHandler) throw new Error('this runtime was built without its HTTP layer; use createRuntime from the package');
    return this.fetchHandler(request);
  }

  /** @internal connects the HTTP layer (done by the package's `createRuntime`). */
  attachFetch(handler: FetchHandler): void {
    this.fetchHandler = handler;
  }

  /** The areas' inbound edges (hosted pages, provider callbacks, WebSocket upgrades), for the HTTP server. */
  edges(): readonly AreaEdge[] {
    return this.parts.edges;
  }

  /**
   * Whether the store and every configured real provider (mail relay, carrier, embedding
   * endpoint) answer now, naming those that do not (`GET /readyz`). Never throws.
   */
  readiness(): Promise<Readiness> {
    return checkReadiness(this.parts.readinessChecks);
  }

  /**
   * The jobs waiting in the store: how many are due now (service time) and how many of each type
   * wait (mail attempts, webhook retries, SMS and call steps, settlements, idle ends), for the
   * operators' gauges. Reads every waiting job: cheap, since done jobs are removed.
   */
  async scheduledJobs(): Promise<{ due: number; byType: Record<string, number> }> {
    const nowMs = Date.parse(this.sim.clock().now);
    let due = 0;
    const byType: Record<string, number> = {};
    for (const job of await this.parts.store.view.all<Job>(JOBS)) {
      if (job.at_ms <= nowMs) due++;
      byType[job.type] = (byType[job.type] ?? 0) + 1;
    }
    return { due, byType };
  }

  /**
   * Calls `listener` with the real milliseconds of every store transaction from its start until
   * it is durable (its commit included), for the store commit latency metric. Costs nothing
   * until a listener is added.
   */
  observeTransactions(listener: (ms: number) => void): void {
    this.parts.transactionTimes.listen(listener);
  }

  /**
   * Starts the areas' listener edges (the SMTP listener of `email.smtp`) and answers where each
   * listens; `serve` calls it. A started edge stays started (a second call answers the same
   * addresses) until `close()` stops its area.
   * @throws Error when a listener cannot listen (address in use)
   */
  listen(): Promise<ListeningEdge[]> {
    return Promise.all(this.parts.edges.flatMap((edge) => (edge.kind === 'listener' ? [edge.listen()] : [])));
  }

  /**
   * Adds an inbound edge answered outside the areas (the package mounts the MCP endpoint at
   * `/mcp` this way). The HTTP layer reads the edges when it is built, so add them before.
   */
  addEdge(edge: AreaEdge): void {
    this.parts.edges.push(edge);
  }

  /**
   * Ends the world cleanly: aborts the calls in flight, stops every area's long-lived work
   * (sessions, sandboxes, listeners), then waits until every change is saved. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.parts.stopAreas();
      await this.parts.saver?.drain();
      await this.parts.store.close?.();
    })();
    return this.closing;
  }

  private closing: Promise<void> | undefined;
}

function constantTimeEquals(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Builds a runtime from options: the container with the chosen providers, the services, the
 * dispatcher and the control plane; opens the data file, or loads saved state when persistence is
 * given.
 * @throws Error when the options are inconsistent or a data file or saved state cannot be read
 */
export async function createRuntimeCore(options: RuntimeOptions = {}): Promise<Runtime> {
  const resolved = await resolveFileOptions(options);
  try {
    return await composeRuntime(resolved);
  } catch (error) {
    // A store this call opened (the data file) is closed again; one the caller gave stays theirs.
    if (resolved.store !== options.store) await resolved.store?.close?.();
    throw error;
  }
}

/** Composes the container, the areas, the dispatcher and the control plane from resolved options. */
async function composeRuntime(options: RuntimeOptions): Promise<Runtime> {
  const mode = options.mode ?? 'simulated';
  const seed = options.seed ?? 0;
  const serviceDomain = options.serviceDomain ?? 'agents.test';
  const startMs = Date.parse(options.startTime ?? DEFAULT_START_TIME);
  if (Number.isNaN(startMs)) throw new RangeError('startTime must be an ISO 8601 date-time');

  const container = new Container({ defaultScope: 'Singleton' });
  const config = new ServiceUrls(serviceDomain, options);
  container.bind(ServiceConfig).toConstantValue(config);
  const clock = options.providers?.clock ?? (mode === 'simulated' ? new SimClock(startMs) : new SystemClock());
  container.bind(Clock).toConstantValue(clock);
  if (isControllableClock(clock)) container.bind(ControllableClock).toConstantValue(clock);
  container.bind(Random).toConstantValue(options.providers?.random ?? (mode === 'simulated' ? new SeededRandom(seed) : new CryptoRandom()));
  // A seed-derived key is public knowledge; live mode must never sign with one.
  container.bind(IssuerKeys).toConstantValue(options.providers?.issuerKeys ?? (mode === 'simulated' ? Ed25519IssuerKeys.fromSeed(seed) : Ed25519IssuerKeys.generate()));
  // Requests see the store through the persistence.write faults (a pass-through while none is armed).
  const rawStore: Store = options.store ?? new MemoryStore();
  const faulting = new FaultingStore(rawStore, () => container.get(Faults));
  const transactionTimes = new TransactionTimes();
  const store: Store = storeWithTransaction(rawStore, (fn) => transactionTimes.time(() => faulting.transaction(fn)));
  if (store.runtimeState && options.persistence) throw new Error('a durable store keeps the state itself; do not also give persistence');
  const eventRetentionMs = options.eventRetention === undefined ? null : parseDuration(options.eventRetention);
  container.bind(Store).toConstantValue(store);
  container.bind(BlobStore).toConstantValue(options.blobs ?? new MemoryBlobStore());
  container.bind(HttpClient).toConstantValue(options.providers?.httpClient ?? new FetchHttpClient());
  container.bind(EventLog).toDynamicValue((context) => new StoreEventLog(context.get(Store), context.get(Clock), eventRetentionMs));
  container.bind(Scheduler).toSelf();
  container.bind(IdempotencyKeys).toSelf();
  container.bind(AgentAdmin).toSelf();
  const areaContext: AreaContext = { container, options, mode, seed };
  for (const area of AREAS) area.bind(areaContext);
  const areaRoutes = startAreas(AREAS, areaContext);

  // Everything is built through the container: providers and services above, the control plane
  // and the dispatcher here (both need what only this function knows: saving, the areas, the lifetime).
  let saver: GroupCommit | null = null;
  container.bind(SimControl).toDynamicValue(
    (context) =>
      new SimControl({
        serviceDomain,
        store: context.get(Store),
        clock: context.get(Clock),
        controllableClock: context.get(ControllableClock, { optional: true }),
        random: context.get(Random),
        events: context.get(EventLog),
        scheduler: context.get(Scheduler),
        identity: context.get(IdentityService),
        changed: () => store.runtimeState?.save() ?? saver?.request() ?? Promise.resolve(),
        restored: () => {
          context.get(IdempotencyKeys).restored();
          for (const area of AREAS) area.restored?.(areaContext);
        },
      }),
  );
  const lifetime = new AbortController();
  const adminToken = options.adminToken;
  container.bind(Dispatcher).toDynamicValue((context) => {
    const identity = context.get(IdentityService);
    // Built with the dispatcher, so this process follows other processes' commits to the faults from the start.
    const faultsGate = context.get(FaultsGate);
    return new Dispatcher({
      routes: [...controlHandlers(context.get(SimControl)), ...adminHandlers(context.get(SimControl), context.get(AgentAdmin)), ...withRequestContext(areaRoutes, () => faultsGate.armed())],
      callers: {
        agentFor: (apiKey) => identity.agentForApiKey(apiKey),
        adminAllowed: (bearer) => {
          if (adminToken !== undefined) return bearer !== null && constantTimeEquals(bearer, adminToken) ? 'allowed' : 'unauthorized';
          return mode === 'simulated' ? 'allowed' : 'hidden';
        },
      },
      idempotency: context.get(IdempotencyKeys),
      onInternalError: options.onInternalError ?? ((error, routeId) => process.stderr.write(`internal error in ${routeId}: ${(error as Error)?.stack ?? String(error)}\n`)),
      lifetime: lifetime.signal,
      deadlines: requestDeadlines(options.requestTimeoutMs),
    });
  });

  const persistence: Persistence | undefined = options.persistence;
  const sim = container.get(SimControl);
  await sim.resume();
  if (persistence) {
    const saved = await persistence.load();
    if (saved !== undefined) {
      const parsed = RuntimeSnapshot.safeParse(saved);
      if (!parsed.success) throw new Error(`the saved state is not an agent-services snapshot (${parsed.error.issues[0]?.path.join('.') || 'root'}: ${parsed.error.issues[0]?.message})`);
      await sim.restore(parsed.data);
    }
    const commit = new GroupCommit(async () => persistence.save(await sim.snapshot()));
    saver = commit;
    store.onCommit(() => commit.request());
  }

  const stopAreas = async () => {
    lifetime.abort(new Error('the runtime is closing'));
    for (const area of [...AREAS].reverse()) await area.stop?.(areaContext);
  };
  const edges = AREAS.flatMap((area) => area.edges?.(areaContext) ?? []);
  return new Runtime({
    options,
    config,
    dispatcher: container.get(Dispatcher),
    sim,
    saver,
    store,
    edges,
    stopAreas,
    readinessChecks: readinessChecks(container, store),
    transactionTimes,
    revealCard: (cardId) => container.get(CardService).revealOnce(cardId),
  });
}
