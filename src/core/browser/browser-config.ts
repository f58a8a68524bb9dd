import type { ServiceIdentifier } from '../shared/di.js';

/** Browser-session settings of a runtime (defaults in docs/browser.md). */
export interface BrowserOptions {
  /** Open sessions one agent may hold (default 5); past it, 429 rate_limited. */
  maxSessionsPerAgent?: number;
  /** Open sessions the whole runtime may hold (default 20); past it, 429 rate_limited. */
  maxSessions?: number;
  /** Service time without activity after which a session ends, in seconds (default 3600, DECISIONS.md). */
  idleSeconds?: number;
  /** Real time one navigation may take, in milliseconds (default 30,000). */
  navigationTimeoutMs?: number;
}

/** Resolved browser settings. */
export type BrowserConfig = Required<BrowserOptions>;

/** Injection token of {@link BrowserConfig}. */
export const BrowserConfig = Symbol.for('agent-services/BrowserConfig') as ServiceIdentifier<BrowserConfig>;

/**
 * Fills the defaults in.
 * @throws RangeError when a limit is not a positive integer
 */
export function browserConfig(options: BrowserOptions = {}): BrowserConfig {
  const config: BrowserConfig = {
    maxSessionsPerAgent: options.maxSessionsPerAgent ?? 5,
    maxSessions: options.maxSessions ?? 20,
    idleSeconds: options.idleSeconds ?? 3600,
    navigationTimeoutMs: options.navigationTimeoutMs ?? 30_000,
  };
  for (const [name, value] of Object.entries(config)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`browser.${name} must be a positive integer, got ${value}`);
  }
  return config;
}
