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

/**
 * The activity components of reputation: points per doubling of the count (5·bitLength(n) for
 * payments) and the most a component gives (or, for failures, takes off).
 */
const COMPONENTS: Readonly<Record<keyof ActivityCounters, { points: number; cap: number; sign: 1 | -1 }>> = {
  payments_confirmed: { points: 5, cap: 25, sign: 1 },
  messages_sent: { points: 4, cap: 20, sign: 1 },
  invoices_paid: { points: 5, cap: 10, sign: 1 },
  payments_failed: { points: 5, cap: 20, sign: -1 },
};

/** {@link counterCeiling} of each counter. */
const CEILINGS = Object.fromEntries(Object.entries(COMPONENTS).map(([kind, { points, cap }]) => [kind, 2 ** (Math.ceil(cap / points) - 1)])) as Readonly<Record<keyof ActivityCounters, number>>;

/**
 * The count at which a counter's component reaches its cap: the smallest `n` whose
 * `points · bitLength(n)` is at least the cap (16 confirmed payments, 16 messages, 2 paid
 * invoices, 8 failed sends). Counting past it changes no score, so counters stop there and a busy
 * agent's actions do not rewrite them.
 */
export function counterCeiling(kind: keyof ActivityCounters): number {
  return CEILINGS[kind];
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
  let activity = 0;
  for (const kind of Object.keys(COMPONENTS) as Array<keyof ActivityCounters>) {
    const { points, cap, sign } = COMPONENTS[kind];
    activity += sign * Math.min(cap, points * bitLength(counters[kind] ?? 0));
  }
  const total = identity + profileScore + age + activity;
  return Math.max(0, Math.min(100, total));
}
