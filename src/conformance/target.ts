import { createAgentClient, createSimClient, type AgentClient, type SimClient } from '../runtime/clients.js';
import type { SimCreateAgentBody } from '../runtime/agent-creation.js';
import type { CreatedAgent } from '../core/identity/identity.schema.js';
import type { WalletAsset } from '../core/wallet/wallet.schema.js';
import type { Policy } from '../core/policy/policy.schema.js';
import { checkedHttpTransport } from './wire-check.js';

/** A raw request to the implementation: a path such as `/v1/wallet/send`, answered as a `Response`. */
export type RawFetch = (path: string, init?: RequestInit) => Promise<Response>;

/** A fault rule of DECISIONS.md (`POST /_sim/faults`). */
export interface FaultRule {
  target: string;
  effect: 'fail' | 'delay' | 'drop';
  probability?: number;
  count?: number;
  match?: Record<string, string>;
  delay_seconds?: number;
  error_code?: string;
}

/** The fault language of the control plane, when the target has it. */
export interface FaultControl {
  add(rule: FaultRule): Promise<{ fault_id: string }>;
  list(): Promise<Array<{ fault_id: string }>>;
  clear(): Promise<void>;
}

/**
 * The control plane the suite drives: the `/_sim` endpoints of DECISIONS.md it needs. Another
 * implementation can supply its own (e.g. over its admin API) instead of `/_sim`.
 */
export interface ControlPlane {
  /** `POST /_sim/agents`. */
  createAgent(body: SimCreateAgentBody): Promise<CreatedAgent>;
  /** `POST /_sim/wallet/fund`. */
  fund(body: { handle: string; asset: WalletAsset; amount: string }): Promise<unknown>;
  /** `POST /_sim/clock/advance` by seconds. */
  advanceClock(seconds: number): Promise<{ now: string }>;
  /** `POST /_sim/email/inbound` (fields form). */
  inboundEmail(body: { to: string; from: string; subject: string; text?: string }): Promise<{ message_id: string; thread_id: string }>;
  /** `POST /_sim/phone/inbound`. */
  inboundSms(body: { to: string; from: string; body: string }): Promise<{ message_id: string }>;
  /** The fault language, or null when the target has no `/_sim/faults`. */
  faults(): Promise<FaultControl | null>;
  /** `PUT /_sim/agents/{name}/policy` (policy checks are skipped without it). */
  setPolicy?(name: string, policy: Policy): Promise<{ policy: Policy | null }>;
  /** `DELETE /_sim/agents/{name}/policy`. */
  removePolicy?(name: string): Promise<void>;
}

/** What the suite runs against: clients acting as agents, the control plane, and optionally raw HTTP. */
export interface ConformanceTarget {
  /** A client acting as the agent that owns `apiKey`. */
  agent(apiKey: string): AgentClient;
  control: ControlPlane;
  /** Raw requests (checks on headers, methods and bodies need it); absent for purely in-process targets. */
  fetch?: RawFetch;
  /** How to reach the target, for the replay command (e.g. its base URL). */
  description?: string;
  /** Whether the target can reach HTTP servers on this machine's 127.0.0.1 (webhook delivery checks). */
  reachesLoopback?: boolean;
}

/** `Authorization: Bearer` for the admin token, when there is one. */
function adminHeaders(adminToken: string | undefined): Record<string, string> {
  return adminToken === undefined ? {} : { authorization: `Bearer ${adminToken}` };
}

/**
 * The fault language over raw HTTP: probed once with `GET /_sim/faults`; a target that answers
 * anything but 200 has none.
 */
export function faultsOver(fetch: RawFetch, adminToken?: string): () => Promise<FaultControl | null> {
  let probe: Promise<FaultControl | null> | undefined;
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(path, {
      method,
      headers: { ...adminHeaders(adminToken), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (response.status >= 400) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  };
  const control: FaultControl = {
    add: async (rule) => (await call('POST', '/_sim/faults', rule)) as { fault_id: string },
    list: async () => {
      const body = (await call('GET', '/_sim/faults')) as { faults?: Array<{ fault_id: string }> } | Array<{ fault_id: string }>;
      return Array.isArray(body) ? body : (body.faults ?? []);
    },
    clear: async () => {
      await call('DELETE', '/_sim/faults');
    },
  };
  return () =>
    (probe ??= fetch('/_sim/faults', { headers: adminHeaders(adminToken) }).then(
      async (response) => {
        await response.arrayBuffer();
        return response.status === 200 ? control : null;
      },
      () => null,
    ));
}

/** A {@link ControlPlane} over a {@link SimClient}; faults through raw HTTP when `fetch` is given. */
export function controlPlaneOf(sim: SimClient, fetch?: RawFetch, adminToken?: string): ControlPlane {
  return {
    createAgent: (body) => sim.createAgent(body),
    fund: (body) => sim.fundWallet(body),
    advanceClock: (seconds) => sim.advanceClock({ seconds }),
    inboundEmail: (body) => sim.emailInbound(body),
    inboundSms: (body) => sim.phoneInbound(body),
    faults: fetch ? faultsOver(fetch, adminToken) : async () => null,
    setPolicy: (name, policy) => sim.setAgentPolicy(name, policy),
    removePolicy: (name) => sim.removeAgentPolicy(name),
  };
}

/** How to reach a server over HTTP. */
export interface HttpTargetOptions {
  /** `{base_url}` of the implementation, e.g. `http://127.0.0.1:8787`. */
  baseUrl: string;
  /** The admin token of `/_sim`, when the server requires one. */
  adminToken?: string;
  /** A fetch implementation (default: the global fetch). */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * A target reached over HTTP: every answer is checked against the wire rules of DECISIONS.md
 * (status matching the error code, error body shape, success statuses) before a check sees it.
 */
export function httpTarget(options: HttpTargetOptions): ConformanceTarget {
  const baseUrl = options.baseUrl.replace(/\/$/, '');
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const raw: RawFetch = (path, init) => send(new Request(baseUrl + path, init));
  const sim = createSimClient(checkedHttpTransport({ baseUrl, fetch: send, ...(options.adminToken === undefined ? {} : { apiKey: options.adminToken }) }));
  return {
    agent: (apiKey) => createAgentClient(checkedHttpTransport({ baseUrl, fetch: send, apiKey })),
    control: controlPlaneOf(sim, raw, options.adminToken),
    fetch: raw,
    description: baseUrl,
    reachesLoopback: ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(baseUrl).hostname),
  };
}
