import type { Container } from 'inversify';
import { Browser } from '../../core/ports/browser.js';
import { ChainNetworks } from '../../core/ports/chain-networks.js';
import { Embedder } from '../../core/ports/embedder.js';
import { MailTransport } from '../../core/ports/mail-transport.js';
import { hasReadinessProbe } from '../../core/ports/readiness-probe.js';
import type { Store } from '../../core/ports/store.js';
import { Sandbox } from '../../core/ports/sandbox.js';
import { Telephony } from '../../core/ports/telephony.js';
import type { ServiceIdentifier } from '../../core/shared/di.js';
import { NETWORKS } from '../../core/wallet/assets.js';
import { WalletConfig } from '../../core/wallet/wallet-config.js';

/** One dependency `GET /readyz` asks, under the name it reports when it fails. */
export interface ReadinessCheck {
  name: string;
  check(signal: AbortSignal): Promise<void>;
}

/** The answer of `GET /readyz`: every check passed, or the names of those that did not. */
export interface Readiness {
  ready: boolean;
  failing: string[];
}

/** How long one check may take before it counts as failing (a load balancer asks every few seconds). */
export const READINESS_TIMEOUT_MS = 5_000;

/**
 * The ports a real provider may sit behind, by the name `/readyz` reports. Simulated providers
 * have no probe and are left out: they cannot be down.
 */
const PROBED_PORTS: ReadonlyArray<readonly [name: string, token: ServiceIdentifier<unknown>]> = [
  ['mail_relay', MailTransport],
  ['telephony', Telephony],
  ['embeddings', Embedder],
  ['sandbox', Sandbox],
  ['browser', Browser],
];

/**
 * The checks of a composed runtime: the store (one read), each configured provider that offers
 * a {@link ReadinessProbe} (the SMTP relay, Twilio, the embeddings endpoint, the bubblewrap
 * sandbox, Chromium), and each network on a real chain (`chain_<network>`): the JSON-RPC endpoint
 * of an RPC network answers its current block, a local chain has been built.
 */
export function readinessChecks(container: Container, store: Store): ReadinessCheck[] {
  const checks: ReadinessCheck[] = [{ name: 'store', check: async () => void (await store.view.get('agents', 'readiness-probe')) }];
  for (const [name, token] of PROBED_PORTS) {
    if (!container.isBound(token)) continue;
    let provider: unknown;
    try {
      provider = container.get(token);
    } catch (error) {
      // A provider that cannot be made (Chromium chosen and gone) is not ready.
      checks.push({ name, check: () => Promise.reject(error) });
      continue;
    }
    if (hasReadinessProbe(provider)) checks.push({ name, check: (signal) => provider.ready(signal) });
  }
  if (container.isBound(WalletConfig)) {
    const { chains } = container.get(WalletConfig);
    for (const network of NETWORKS) {
      const setting = chains[network];
      const name = `chain_${network}`;
      if (setting.mode === 'rpc') checks.push({ name, check: (signal) => jsonRpcAnswers(setting.url, network === 'solana' ? 'getSlot' : 'eth_blockNumber', signal) });
      // A local chain is ready once it is built and the chains have started on it (an empty holdings question waits for both).
      else if (setting.mode === 'local' && container.isBound(ChainNetworks)) checks.push({ name, check: async () => void (await container.get(ChainNetworks).holdings(network, [])) });
    }
  }
  return checks;
}

/**
 * Asks a JSON-RPC endpoint one question without parameters (`eth_blockNumber`, Solana's
 * `getSlot`): it answers when its answer is a JSON-RPC result.
 * @throws Error when the endpoint cannot be reached, answers an error, or `signal` aborts first
 */
async function jsonRpcAnswers(url: string, method: string, signal: AbortSignal): Promise<void> {
  const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }), signal });
  if (!answer.ok) throw new Error(`${method}: HTTP ${answer.status}`);
  const body = (await answer.json()) as { result?: unknown; error?: unknown };
  if (body.result === undefined || body.error !== undefined) throw new Error(`${method}: no result`);
}

/**
 * Runs every check at once, each under {@link READINESS_TIMEOUT_MS}; a check that throws or
 * outlasts it is failing. Never throws.
 */
export function checkReadiness(checks: readonly ReadinessCheck[], timeoutMs = READINESS_TIMEOUT_MS): Promise<Readiness> {
  // Requests that come while a check runs share it: /readyz needs no auth, and a probe may start
  // a process or log in to a relay, so a burst of requests must not start one each.
  let running = inFlight.get(checks);
  if (!running) {
    running = runChecks(checks, timeoutMs).finally(() => inFlight.delete(checks));
    inFlight.set(checks, running);
  }
  return running;
}

const inFlight = new WeakMap<readonly ReadinessCheck[], Promise<Readiness>>();

async function runChecks(checks: readonly ReadinessCheck[], timeoutMs: number): Promise<Readiness> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('readiness check timed out')), timeoutMs);
  timer.unref();
  const aborted = new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true }));
  aborted.catch(() => {});
  try {
    const outcomes = await Promise.allSettled(checks.map((entry) => Promise.race([entry.check(controller.signal), aborted])));
    const failing = checks.flatMap((entry, index) => (outcomes[index]!.status === 'rejected' ? [entry.name] : []));
    return { ready: failing.length === 0, failing };
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}
