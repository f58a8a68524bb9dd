/**
 * Something a real provider can answer so that `GET /readyz` knows it is reachable: an SMTP relay
 * greets, Twilio answers the account, an embedding endpoint embeds. Providers implement it as an
 * optional member of their own port (`ready` on a mail transport, a carrier, an embedder); the
 * simulated ones do not, since they cannot be down.
 */
export interface ReadinessProbe {
  /**
   * Resolves when the provider answers; `signal` aborts the check (the caller's deadline).
   * @throws Error saying what failed (the readiness answer names only the provider)
   */
  ready(signal: AbortSignal): Promise<void>;
}

/** Whether `provider` offers a {@link ReadinessProbe}. */
export function hasReadinessProbe(provider: unknown): provider is ReadinessProbe {
  return typeof (provider as Partial<ReadinessProbe> | null | undefined)?.ready === 'function';
}
