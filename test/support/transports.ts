/**
 * One harness, three ways in: the same API tests run against the in-process clients, against
 * `runtime.fetch` (the HTTP shim without a socket) and against a real socket from `serve`.
 */
import { expect } from 'vitest';
import {
  ApiError,
  ERROR_STATUS,
  connect,
  connectSim,
  createRuntime,
  serve,
  type AgentClient,
  type SimCreateAgentBody,
  type CreatedAgent,
  type ErrorCode,
  type Runtime,
  type RuntimeOptions,
  type SimClient,
} from '../../src/index.js';
import { recordingSend } from './openapi-recorder.js';
import { freshDatabase, postgresSkipReason } from './postgres.js';

/** The ways a test reaches the API. */
export const TRANSPORTS = ['in-process', 'fetch', 'http'] as const;
/** A way in, or `postgres`: the in-process clients on a world kept in PostgreSQL (a fresh database). */
export type TransportKind = (typeof TRANSPORTS)[number] | 'postgres';

/** The transports, plus a PostgreSQL world where a server runs for the tests (the areas whose store use matters most). */
export const TRANSPORTS_AND_POSTGRES: readonly TransportKind[] = postgresSkipReason() === null ? [...TRANSPORTS, 'postgres'] : TRANSPORTS;

/** The ways a raw `Request` reaches the HTTP shim: `runtime.fetch`, or a real socket. */
export const RAW_TRANSPORTS = ['fetch', 'http'] as const;
export type RawTransportKind = (typeof RAW_TRANSPORTS)[number];

/** The base URL requests carry when they are answered by `runtime.fetch` (no socket). */
export const IN_PROCESS_BASE_URL = 'http://in-process.test';

/** An agent created for a test, with a client that acts as it. */
export interface TestAgent extends CreatedAgent {
  client: AgentClient;
}

/** A runtime reached one way. */
export interface World {
  kind: TransportKind;
  runtime: Runtime;
  /** The control plane, reached the same way as the agents. */
  sim: SimClient;
  /** A client acting as the agent that owns `apiKey`. */
  agent(apiKey: string): AgentClient;
  /** A client without a key (public endpoints). */
  anonymous: AgentClient;
  /** `{base_url}` requests go to (a placeholder for in-process worlds). */
  baseUrl: string;
  /** Sends a raw request for `path` (e.g. `/v1/agent`) the way this world is reached (in-process worlds use `runtime.fetch`). */
  raw(path: string, init?: RequestInit): Promise<Response>;
  /** Creates an agent through the control plane and answers it with its client. */
  newAgent(name: string, extra?: Omit<SimCreateAgentBody, 'name'>): Promise<TestAgent>;
  /** Stops the server (if any) and the runtime. */
  close(): Promise<void>;
}

/**
 * Builds a runtime and the clients of one transport.
 * - `in-process`: `runtime.agent`, `runtime.simClient`, `runtime.anonymous`;
 * - `fetch`: `connect` with `runtime.fetch` as its fetch (the HTTP shim, no socket);
 * - `http`: `serve(runtime, { port: 0 })` on 127.0.0.1 and `connect` with the global fetch.
 */
export async function openWorld(kind: TransportKind, options: RuntimeOptions = {}): Promise<World> {
  const runtime = await createRuntime(kind === 'postgres' ? { ...options, database: await freshDatabase() } : options);
  const adminToken = options.adminToken;
  let baseUrl = IN_PROCESS_BASE_URL;
  let stopServer: () => Promise<void> = async () => {};
  let send: (request: Request) => Promise<Response> = (request) => runtime.fetch(request);
  let agent: (apiKey: string) => AgentClient;
  let anonymous: AgentClient;
  let sim: SimClient;

  if (kind === 'in-process' || kind === 'postgres') {
    agent = (apiKey) => runtime.agent(apiKey);
    anonymous = runtime.anonymous();
    sim = runtime.simClient();
  } else {
    if (kind === 'http') {
      const server = await serve(runtime, { port: 0 });
      baseUrl = server.url;
      stopServer = () => server.close();
      send = recordingSend(runtime, (request) => fetch(request));
    } else {
      send = recordingSend(runtime, (request) => runtime.fetch(request));
    }
    // Every exchange goes through the recorder, which checks it against /openapi.json.
    const via = { fetch: send };
    agent = (apiKey) => connect({ baseUrl, apiKey, ...via });
    anonymous = connect({ baseUrl, ...via });
    sim = connectSim({ baseUrl, ...via, ...(adminToken === undefined ? {} : { apiKey: adminToken }) });
  }

  return {
    kind,
    runtime,
    sim,
    agent,
    anonymous,
    baseUrl,
    raw: (path, init) => send(new Request(baseUrl + path, init)),
    newAgent: async (name, extra = {}) => {
      const created = await sim.createAgent({ name, ...extra });
      return { ...created, client: agent(created.api_key) };
    },
    close: async () => {
      await stopServer();
      await runtime.close();
    },
  };
}

/** A world reached only through raw requests: `runtime.fetch`, or a real socket. */
export function openRawWorld(kind: RawTransportKind, options: RuntimeOptions = {}): Promise<World> {
  return openWorld(kind, options);
}

/** JSON request options for {@link World.raw}. */
export function jsonInit(method: string, body?: unknown, headers: Record<string, string> = {}): RequestInit {
  return {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  };
}

/** `Authorization: Bearer <key>`. */
export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

/**
 * Asserts that a raw response is an error with exactly the DECISIONS.md shape:
 * `{"error": {"code", "message", "param"?}}`, JSON, status matching the code, and (when given)
 * this param; `param: null` asserts that no param is set. Answers the body.
 */
export async function expectErrorResponse(response: Response, status: number, code: ErrorCode, param?: string | null): Promise<{ error: { code: string; message: string; param?: string } }> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(response.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  const body = JSON.parse(text) as { error: { code: string; message: string; param?: string } };
  expectErrorShape(body);
  expect(body.error.code).toBe(code);
  expect(ERROR_STATUS[code]).toBe(status);
  if (param === null) expect(body.error).not.toHaveProperty('param');
  else if (param !== undefined) expect(body.error.param).toBe(param);
  return body;
}

/** Asserts the DECISIONS.md error body shape, and nothing more. */
export function expectErrorShape(body: unknown): void {
  expect(Object.keys(body as object)).toEqual(['error']);
  const error = (body as { error: Record<string, unknown> }).error;
  for (const key of Object.keys(error)) expect(['code', 'message', 'param']).toContain(key);
  expect(typeof error.code).toBe('string');
  expect(Object.keys(ERROR_STATUS)).toContain(error.code);
  expect(typeof error.message).toBe('string');
  expect((error.message as string).length).toBeGreaterThan(0);
  if ('param' in error) expect(typeof error.param).toBe('string');
}

/**
 * Asserts that a client call rejects with an {@link ApiError} of this status, code and (when
 * given) param; `param: null` asserts that no param is set.
 */
export async function expectApiError(call: Promise<unknown>, status: number, code: ErrorCode, param?: string | null): Promise<ApiError> {
  let caught: unknown;
  try {
    await call;
  } catch (error) {
    caught = error;
  }
  expect(caught, 'the call should have failed').toBeInstanceOf(ApiError);
  const error = caught as ApiError;
  expect({ status: error.status, code: error.code }).toEqual({ status, code });
  if (param === null) expect(error.param).toBeUndefined();
  else if (param !== undefined) expect(error.param).toBe(param);
  return error;
}

/** ISO 8601 with milliseconds and `Z`, as the service writes timestamps. */
export const ISO_MS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
