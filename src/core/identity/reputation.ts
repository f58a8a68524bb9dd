import { DAY_MS } from '../shared/time.js';

/** Activity counters that feed reputation; later areas add to them as agents act. */
export interface ActivityCounters {
  /** Wallet movements that reached `confirmed`, in or out. */
  payments_confirmed?: number;
  /** Outbound wallet sends that ended `failed`. */
  payments_failed?: number;
  /** Emails sent, SMS sent and calls completed. */
  messages_sent?: number;
  /** Invoices of this agent that were paid. */
  invoices_paid?: number;
}

/** What reputation is computed from. */
export interface ReputationInput {
  counters: ActivityCounters;
  hasIdentityCredential: boolean;
  profile: { display_name: string | null; bio: string | null; avatar_url: string | null; default_display_name: string };
  createdMs: number;
  nowMs: number;
}

/** Number of bits of a non-negative integer: 0→0, 1→1, 2..3→2, 4..7→3, 8..15→4. */
function bitLength(count: number): number {
  let bits = 0;
  // Halving by division, not `>>>`, which would truncate counts of 2^32 and more to 32 bits.
  for (let n = Math.min(Number.MAX_SAFE_INTEGER, Math.max(0, Math.floor(count))); n > 0; n = Math.floor(n / 2)) bits++;
  return bits;
}

/**
 * Reputation, an integer 0..100, from integer arithmetic only (the same on every machine):
 * - verified identity: 20 while the agent holds an identity credential (every agent, at creation);
 * - profile: 5 each for a display name other than the agent name, a bio and an avatar (max 15);
 * - age: 1 per 3 whole days since creation (max 20);
 * - payments: 5 per doubling of confirmed payments, 5·bitLength(n) (max 25);
 * - messaging: 4 per doubling of messages sent, 4·bitLength(n) (max 20);
 * - invoices: 5 per doubling of paid invoices (max 10);
 * - failures: minus 5 per doubling of failed sends (max 20 off).
 * A new agent starts at 20, or 25 with its own display name.
 */
export function computeReputation(input: ReputationInput): number {
  const { counters, profile } = input;
  const identity = input.hasIdentityCredential ? 20 : 0;
  const profileScore = (profile.display_name && profile.display_name !== profile.default_display_name ? 5 : 0) + (profile.bio ? 5 : 0) + (profile.avatar_url ? 5 : 0);
  const age = Math.min(20, Math.floor(Math.max(0, input.nowMs - input.createdMs) / (3 * DAY_MS)));
  const payments = Math.min(25, 5 * bitLength(counters.payments_confirmed ?? 0));
  const messaging = Math.min(20, 4 * bitLength(counters.messages_sent ?? 0));
  const invoices = Math.min(10, 5 * bitLength(counters.invoices_paid ?? 0));
  const failures = Math.min(20, 5 * bitLength(counters.payments_failed ?? 0));
  const total = identity + profileScore + age + payments + messaging + invoices - failures;
  return Math.max(0, Math.min(100, total));
}
