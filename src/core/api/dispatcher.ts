import { ApiError, toApiError } from '../shared/api-error.js';
import { canonicalJson, sha256Hex } from '../shared/json.js';
import { IDEMPOTENCY_KEY_MAX, type ClaimAhead, type ClaimedKey, type IdempotencyKeys, type StoredOutcome } from '../services/idempotency.js';
import { KeyAgents } from './key-agents.js';
import { isUploadedFile, type ReceivedUpload, type UploadedFile } from './binary.js';
import type { BoundRoute, CallContext, DurableStep, RouteDefinition } from './route.js';
import { parseInput } from './validation.js';
import { illFormedPath, MAX_NESTING, NestedTooDeep } from '../shared/unicode.js';

/** A request in transport-neutral form: what the HTTP shim and in-process clients both send. */
export interface DispatchRequest {
  routeId: string;
  params?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
  /** The bearer credential (API key or admin token), without the `Bearer ` prefix. */
  bearer?: string | null;
  idempotencyKey?: string | null;
  /** Request headers, names lower-cased (provider callbacks read signatures from them). */
  headers?: Record<string, string>;
  /** The exact body bytes, kept for routes declared with `rawBody: true`. */
  rawBody?: Uint8Array;
  /** Aborted when the caller goes away (a closed socket). */
  signal?: AbortSignal;
  /**
   * Acts as this agent on agent routes without its API key. Only in-process operator tools (the
   * dashboard, through `runtime.actAs`) set it; the HTTP edge never does.
   */
  actingAgentId?: string;
}

/** The answer: status, JSON body (null for 204) and extra headers. */
export interface DispatchResult {
  status: number;
  body: unknown;
  headers: Record<string, string>;
  /** The agent the call acted as, once authenticated (request logs and metrics read it); absent otherwise. */
  agentId?: string;
}

/** How the dispatcher learns who is calling. */
export interface CallerPolicy {
  /** The agent id behind an API key, or undefined. */
  agentFor(apiKey: string): Promise<string | undefined>;
  /** Whether the control plane answers this bearer (null when none was sent). */
  adminAllowed(bearer: string | null): 'allowed' | 'unauthorized' | 'hidden';
}

/** The outside-I/O deadline of every call (the runtime's `requestTimeoutMs`). */
export interface CallDeadlines {
  /** Budget of each call, in real milliseconds from when its dispatch began. */
  ms: number;
  /** The monotonic clock deadlines are read on (`performance.now()`). */
  now(): number;
  /** A signal that aborts `ms` real milliseconds from now. */
  after(ms: number): AbortSignal;
}

/** Receives the failures that were turned into 500s, for logging outside the wire. */
export type InternalErrorSink = (error: unknown, routeId: string) => void;

/** What a {@link Dispatcher} is built from. */
export interface DispatcherOptions {
  /** Every route bound to its handler; ids must be unique. */
  routes: BoundRoute[];
  callers: CallerPolicy;
  idempotency: IdempotencyKeys;
  /** Receives failures answered as 500 (default: dropped). */
  onInternalError?: InternalErrorSink | undefined;
  /** Aborted when the runtime closes: every call's `signal` follows it (default: never). */
  lifetime?: AbortSignal;
  /** The deadline of each call (default: none). */
  deadlines?: CallDeadlines | undefined;
}

/**
 * Runs routes: authentication, validation, the Idempotency-Key layer and the handler, and turns
 * every outcome, including bugs, into a DECISIONS.md answer. It never throws.
 */
export class Dispatcher {
  private readonly routes = new Map<string, BoundRoute>();
  private readonly callers: CallerPolicy;
  private readonly idempotency: IdempotencyKeys;
  private readonly onInternalError: InternalErrorSink;
  private readonly lifetime: AbortSignal;
  private readonly deadlines: CallDeadlines | undefined;
  private readonly keyAgents = new KeyAgents();

  /** @throws Error for two routes with one id */
  constructor(options: DispatcherOptions) {
    this.callers = options.callers;
    this.idempotency = options.idempotency;
    this.onInternalError = options.onInternalError ?? (() => {});
    this.lifetime = options.lifetime ?? new AbortController().signal;
    this.deadlines = options.deadlines;
    for (const route of options.routes) {
      if (this.routes.has(route.definition.id)) throw new Error(`duplicate route ${route.definition.id}`);
      this.routes.set(route.definition.id, route);
    }
  }

  /** Every route definition, in registration order (for the HTTP shim and OpenAPI). */
  definitions(): RouteDefinition[] {
    return [...this.routes.values()].map((route) => route.definition);
  }

  /**
   * Answers one request; the result names the agent it acted as. One async frame for the whole
   * request (authentication included): every in-process call passes here.
   */
  async dispatch(request: DispatchRequest): Promise<DispatchResult> {
    const route = this.routes.get(request.routeId);
    if (!route) return errorResult(new ApiError('not_found', 'no such route'));
    const { definition } = route;
    let agentId: string | null = null;
    let ahead: ClaimAhead | undefined;
    try {
      // Only agent routes look the key up in the store: the others authenticate without an await.
      if (definition.auth !== 'agent') this.authorize(definition, request.bearer ?? null);
      else if (request.actingAgentId !== undefined) agentId = request.actingAgentId;
      else {
        const bearer = request.bearer ?? null;
        if (!bearer) throw new ApiError('unauthorized', 'missing API key: send Authorization: Bearer <API_KEY>');
        // A key seen before names the same agent again: its request's claim goes with the key's read.
        ahead = this.claimAhead(definition, request, bearer);
        agentId = (await this.callers.agentFor(bearer)) ?? null;
        if (agentId === null) throw new ApiError('unauthorized', 'unknown API key');
        if (this.idempotency.claimsAhead) this.keyAgents.remember(bearer, agentId);
        if (ahead && ahead.scope !== agentId) {
          await ahead.abandon();
          ahead = undefined;
        }
      }
      const context = this.contextOf(definition, request, agentId);
      checkUnicode(request, definition);
      const params = definition.params ? parseInput(definition.params, request.params ?? {}) : undefined;
      const query = definition.query ? parseInput(definition.query, request.query ?? {}) : noQuery(request.query);
      const body = definition.upload ? uploadOf(request.body, definition.upload.field) : definition.body ? parseInput(definition.body, request.body === undefined ? {} : request.body) : undefined;
      const key = definition.method === 'POST' ? (request.idempotencyKey ?? null) : null;
      if (key !== null) checkIdempotencyKey(key);
      let result: DispatchResult;
      if (definition.upload) result = await this.dispatchUpload(route, context, { params, query, body: body as UploadedFile }, key, request);
      else if (key === null) result = await this.run(route, context, { params, query, body }, null);
      else {
        const fingerprint = sha256Hex(canonicalJson({ method: definition.method, route: definition.id, params: request.params ?? {}, body: request.body ?? null }));
        const decision = await (ahead ? ahead.decide(fingerprint) : this.idempotency.begin(context.agentId ?? 'admin', key, fingerprint));
        result = decision.kind === 'replay' ? replayed(decision.outcome) : await this.run(route, context, { params, query, body }, decision);
      }
      return actedAs(result, agentId);
    } catch (error) {
      // A request refused before its key's decision (401, 400) gives back the claim asked for ahead
      // before it answers: a retry with the key then finds it free.
      await ahead?.abandon();
      if (!(error instanceof ApiError)) this.onInternalError(error, definition.id);
      return actedAs(errorResult(toApiError(error)), agentId);
    }
  }

  /**
   * The Idempotency-Key claim of a keyed POST asked for now, under the agent `bearer` named last
   * time (see IdempotencyKeys.ahead): only on a store shared across processes, not for uploads
   * (their key layer is their own), and only for a key that will pass its checks.
   */
  private claimAhead(definition: RouteDefinition, request: DispatchRequest, bearer: string): ClaimAhead | undefined {
    const key = request.idempotencyKey;
    if (!this.idempotency.claimsAhead || definition.method !== 'POST' || definition.upload || key === undefined || key === null || !validIdempotencyKey(key)) return undefined;
    const agentId = this.keyAgents.agentOf(bearer);
    return agentId === undefined ? undefined : this.idempotency.ahead(agentId, key);
  }

  /**
   * Runs a route's handler; with a claimed key, in the durable unit that also writes the key's
   * record. Never throws. Not an async frame of its own unless the route is staged.
   */
  private run(route: BoundRoute, context: CallContext, input: { params: unknown; query: unknown; body: unknown }, claimed: ClaimedKey | null): Promise<DispatchResult> {
    if (route.staged) return this.runStaged(route, context, input, claimed);
    const execute = () => this.execute(route.definition, context, () => route.handle(context, input));
    return claimed === null ? execute() : this.idempotency.within(execute, () => claimed);
  }

  /**
   * Runs a staged route: its outside call first, outside any unit, so the unit holds only its
   * effect; when the call fails (its deadline passed) the unit records only the failure.
   */
  private async runStaged(route: BoundRoute, context: CallContext, input: { params: unknown; query: unknown; body: unknown }, claimed: ClaimedKey | null): Promise<DispatchResult> {
    const { definition } = route;
    let call: DurableStep<unknown> | undefined;
    let failed: DispatchResult | undefined;
    try {
      call = (await route.handle(context, input)) as DurableStep<unknown>;
    } catch (error) {
      failed = this.failure(definition, context, error);
    }
    const execute = () => (failed ? Promise.resolve(failed) : this.execute(definition, context, call!));
    return claimed === null ? execute() : this.idempotency.within(execute, () => claimed);
  }

  /**
   * Runs `call` (a handler or a staged route's durable step) and turns what it answers or throws
   * into a result; never throws. A handler on the call's promise rather than an async frame: every
   * request passes here.
   */
  private execute(definition: RouteDefinition, context: CallContext, call: () => unknown): Promise<DispatchResult> {
    let running: unknown;
    try {
      running = call();
    } catch (error) {
      return Promise.resolve(this.failure(definition, context, error));
    }
    return Promise.resolve(running).then(
      (body): DispatchResult => ({ status: definition.status, body: definition.status === 204 ? null : body, headers: {} }),
      (error: unknown) => this.failure(definition, context, error),
    );
  }

  /** The answer to what a handler threw; reports bugs. */
  private failure(definition: RouteDefinition, context: CallContext, error: unknown): DispatchResult {
    if (error instanceof UploadReplay) return replayed(error.outcome);
    if (this.deadlines && context.deadline !== undefined && !(error instanceof ApiError) && (this.deadlines.now() >= context.deadline || deadlineFired.get(context)?.aborted)) {
      // Not a bug, so not reported as one. Handlers write nothing once their outside call was cut
      // (DECISIONS.md: nothing of the request is kept), and the key layer stores no 504.
      return errorResult(new ApiError('upstream_timeout', `the request's outside calls did not finish within its deadline of ${this.deadlines.ms} ms`));
    }
    // A call cut by its caller going away or the runtime closing is not a bug either.
    if (!(error instanceof ApiError) && !context.signal.aborted) this.onInternalError(error, definition.id);
    return errorResult(toApiError(error));
  }

  /**
   * Runs an upload route. Its Idempotency-Key fingerprint covers the file's name, type and
   * SHA-256, which exist only once the bytes are in, so the key is claimed when the handler calls
   * `received` (before it changes state) rather than before the handler runs.
   */
  private async dispatchUpload(route: BoundRoute, context: CallContext, input: { params: unknown; query: unknown; body: UploadedFile }, key: string | null, request: DispatchRequest): Promise<DispatchResult> {
    const { definition } = route;
    const file = input.body;
    let claimed: ClaimedKey | undefined;
    const upload: ReceivedUpload = {
      filename: file.filename,
      contentType: file.contentType,
      stream: file.stream,
      received: async (sha256) => {
        if (key === null || claimed) return;
        const fingerprint = sha256Hex(canonicalJson({ method: definition.method, route: definition.id, params: request.params ?? {}, upload: { filename: file.filename, content_type: file.contentType, sha256 } }));
        const decision = await this.idempotency.begin(context.agentId ?? 'admin', key, fingerprint);
        if (decision.kind === 'replay') throw new UploadReplay(decision.outcome);
        claimed = decision;
      },
    };
    const execute = () => this.execute(definition, context, () => route.handle(context, { ...input, body: upload }));
    return key === null ? execute() : this.idempotency.within(execute, () => claimed);
  }

  /** The call context: who is calling (`agentId`, already authenticated), the signal, headers and raw body. */
  private contextOf(definition: RouteDefinition, request: DispatchRequest, agentId: string | null): CallContext {
    const base = request.signal ? this.callSignal(request.signal) : this.lifetime;
    const headers = request.headers ?? NO_HEADERS;
    const deadlines = this.deadlines;
    let context: CallContext;
    if (!deadlines) context = { agentId, signal: base, headers };
    else {
      const deadline = deadlines.now() + deadlines.ms;
      let signal: AbortSignal | undefined;
      // The timer and the combined signal are made only for handlers that read the signal (those
      // doing outside work): most calls never do, and AbortSignal.any costs more than a GET.
      context = {
        agentId,
        headers,
        deadline,
        get signal() {
          if (signal) return signal;
          const timer = deadlines.after(Math.max(0, deadline - deadlines.now()));
          deadlineFired.set(context, timer);
          return (signal = AbortSignal.any([base, timer]));
        },
      };
    }
    if (definition.rawBody) context.rawBody = request.rawBody ?? new Uint8Array();
    return context;
  }

  /**
   * The caller's signal combined with the runtime's lifetime, made once per caller signal: the HTTP
   * server passes one signal per connection, and AbortSignal.any costs more than a whole request.
   */
  private callSignal(signal: AbortSignal): AbortSignal {
    let combined = this.combinedSignals.get(signal);
    if (!combined) this.combinedSignals.set(signal, (combined = AbortSignal.any([signal, this.lifetime])));
    return combined;
  }

  private readonly combinedSignals = new WeakMap<AbortSignal, AbortSignal>();

  /**
   * Lets a public or admin call through (they act as no agent).
   * @throws ApiError 401 unauthorized, 404 not_found (a hidden control plane)
   */
  private authorize(definition: RouteDefinition, bearer: string | null): void {
    if (definition.auth === 'admin') {
      const verdict = this.callers.adminAllowed(bearer);
      if (verdict === 'hidden') throw new ApiError('not_found', 'no such route');
      if (verdict === 'unauthorized') throw new ApiError('unauthorized', 'a valid admin token is required');
    }
  }
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The deadline timer of each call whose handler read its signal. A timer may fire a fraction of a
 * millisecond before the monotonic clock reaches the deadline, so "the deadline passed" is asked of
 * the timer as well as of the clock.
 */
const deadlineFired = new WeakMap<CallContext, AbortSignal>();

/** The uploaded file of an upload route. @throws ApiError 400 invalid_request on `field` when there is none */
function uploadOf(body: unknown, field: string): UploadedFile {
  if (!isUploadedFile(body)) throw new ApiError('invalid_request', `${field}: a multipart/form-data part named "${field}" holding a file is required`, field);
  return body;
}

/** Whether an `Idempotency-Key` is of an accepted length. */
function validIdempotencyKey(key: string): boolean {
  return key.length > 0 && key.length <= IDEMPOTENCY_KEY_MAX;
}

/** @throws ApiError 400 invalid_request for a key of the wrong length */
function checkIdempotencyKey(key: string): void {
  if (!validIdempotencyKey(key)) {
    throw new ApiError('invalid_request', `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} characters`, 'Idempotency-Key');
  }
}

/**
 * DECISIONS.md: text is Unicode. A string holding an unpaired UTF-16 surrogate anywhere in the
 * path parameters, query or JSON body is refused before validation, so it is never stored or echoed.
 * The same walk refuses a body nested deeper than 256 levels, before anything recursive sees it.
 * @throws ApiError 400 invalid_request on the dotted path of the first such string, or for nesting
 */
function checkUnicode(request: DispatchRequest, definition: RouteDefinition): void {
  refuseIllFormed(request.params);
  refuseIllFormed(request.query);
  if (!definition.upload) refuseIllFormed(request.body);
}

/** @throws ApiError 400 invalid_request on the dotted path of the first ill-formed string of `value`, or past {@link MAX_NESTING} levels */
function refuseIllFormed(value: unknown): void {
  let path: string | undefined;
  try {
    path = illFormedPath(value);
  } catch (error) {
    if (error instanceof NestedTooDeep) throw new ApiError('invalid_request', `expected JSON nested at most ${MAX_NESTING} levels deep, got deeper`);
    throw error;
  }
  if (path === undefined) return;
  const param = path || undefined;
  throw new ApiError('invalid_request', `${param ? `${param}: ` : ''}expected Unicode text, got a string with an unpaired UTF-16 surrogate`, param);
}

/**
 * A route without a query schema takes no query parameters: one it would ignore is refused, as the
 * OpenAPI document lists none.
 * @throws ApiError 400 invalid_request on the first parameter
 */
function noQuery(query: Record<string, unknown> | undefined): undefined {
  const name = query ? Object.keys(query)[0] : undefined;
  if (name !== undefined) throw new ApiError('invalid_request', `${name}: is not a parameter of this request`, name);
  return undefined;
}

/** Thrown through an upload handler when its Idempotency-Key replays an earlier answer. */
class UploadReplay extends Error {
  constructor(readonly outcome: StoredOutcome) {
    super('replayed');
  }
}

/** The answer that replays a stored outcome. */
function replayed(outcome: StoredOutcome): DispatchResult {
  return { status: outcome.status, body: outcome.body, headers: { ...outcome.headers, 'Idempotent-Replayed': 'true' } };
}

/** `result`, naming the agent the call acted as (when it authenticated one). */
function actedAs(result: DispatchResult, agentId: string | null): DispatchResult {
  if (agentId !== null) result.agentId = agentId;
  return result;
}

function errorResult(error: ApiError): DispatchResult {
  return { status: error.status, body: error.toBody(), headers: { ...error.headers } };
}
