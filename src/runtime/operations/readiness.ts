import type { Container } from 'inversify';
import { Embedder } from '../../core/ports/embedder.js';
import { MailTransport } from '../../core/ports/mail-transport.js';
import { hasReadinessProbe } from '../../core/ports/readiness-probe.js';
import type { Store } from '../../core/ports/store.js';
import { Telephony } from '../../core/ports/telephony.js';
import type { ServiceIdentifier } from '../../core/shared/di.js';

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
];

/**
 * The checks of a composed runtime: the store (one read) and each configured provider that offers
 * a {@link ReadinessProbe}.
 */
export function readinessChecks(container: Container, store: Store): ReadinessCheck[] {
  const checks: ReadinessCheck[] = [{ name: 'store', check: async () => void (await store.view.get('agents', 'readiness-probe')) }];
  for (const [name, token] of PROBED_PORTS) {
    if (!container.isBound(token)) continue;
    const provider = container.get(token);
    if (hasReadinessProbe(provider)) checks.push({ name, check: (signal) => provider.ready(signal) });
  }
  return checks;
}

/**
 * Runs every check at once, each under {@link READINESS_TIMEOUT_MS}; a check that throws or
 * outlasts it is failing. Never throws.
 */
export async function checkReadiness(checks: readonly ReadinessCheck[], timeoutMs = READINESS_TIMEOUT_MS): Promise<Readiness> {
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
