import { getCountries } from 'libphonenumber-js';
import { z } from 'zod';
import { ASSETS, DECIMALS, NETWORKS, type Asset } from '../wallet/assets.js';

/** Most entries of one list of a policy (recipients, domains, countries). */
export const POLICY_LIST_MAX = 1_000;
/** Largest count limit (per-day counts, memories, seconds). */
const COUNT_MAX = 1_000_000_000;

/**
 * A limit in `asset`: a decimal string with at most the asset's decimal places; zero is a valid
 * limit (it forbids). The grammar is a pattern, so the document shows exactly what is checked.
 */
function amountOf(asset: Asset) {
  const places = DECIMALS[asset];
  return z.string().regex(new RegExp(`^(0|[1-9][0-9]{0,29})(\\.[0-9]{1,${places}})?$`), {
    error: `must be a decimal string with at most ${places} decimal places, such as "${places === 2 ? '100.00' : '1.5'}"`,
  });
}

/** Amounts by asset (`{usd: "100.00"}`); every key optional, no other keys. */
const AssetAmounts = z.strictObject(Object.fromEntries(ASSETS.map((asset) => [asset, amountOf(asset).optional()])) as { [A in Asset]: z.ZodOptional<ReturnType<typeof amountOf>> });

/** A count limit: an integer from 0 (forbids) up. */
const Count = z.number().int().min(0).max(COUNT_MAX);

/**
 * A recipient pattern: an exact handle, address, email or `iban:`/`aba:` account, or a prefix
 * ending in one `*` (`iban:DE*`, `0xAbC*`).
 */
const RecipientPattern = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[^*\s]+\*?$|^\*$/, { error: 'must be a handle, address, email or account, or a prefix ending in one "*" (no spaces, "*" only at the end)' });

/** A mail domain: matched exactly, or with a leading dot as a suffix (subdomains only). */
const DomainPattern = z
  .string()
  .max(254)
  .regex(/^\.?(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/, {
    error: 'must be a domain such as "example.com", or ".example.com" for its subdomains',
  });

/** An ISO 3166-1 alpha-2 country that has phone numbers (libphonenumber-js's list). */
const Country = z.enum(getCountries() as [string, ...string[]], { error: 'must be an ISO 3166-1 alpha-2 country code such as "US"' });

/** The wallet part of a policy. */
export const WalletPolicy = z.strictObject({
  per_transaction: AssetAmounts.optional().describe('largest amount of one send, by asset (fees excluded)'),
  per_day: AssetAmounts.optional().describe('largest total sent in one UTC day of service time, by asset (pending and confirmed sends)'),
  recipients: z.array(RecipientPattern).max(POLICY_LIST_MAX).optional().describe('the only recipients allowed: exact, or a prefix ending in "*"'),
  networks: z
    .array(z.enum(NETWORKS))
    .max(NETWORKS.length * 4)
    .optional()
    .describe('the only chains a send may use (the default network included)'),
});

/** The email part of a policy. */
export const EmailPolicy = z.strictObject({
  recipient_domains: z.array(DomainPattern).max(POLICY_LIST_MAX).optional().describe('the only domains mail may go to (to, cc, bcc and replies)'),
  per_day: Count.optional().describe('most messages sent in one UTC day (a send or a reply is one)'),
});

/** The phone part of a policy. */
export const PhonePolicy = z.strictObject({
  countries: z.array(Country).max(POLICY_LIST_MAX).optional().describe('the only destination countries of SMS and calls'),
  sms_per_day: Count.optional().describe('most SMS accepted in one UTC day'),
  calls_per_day: Count.optional().describe('most calls accepted in one UTC day'),
});

/** The compute part of a policy. */
export const ComputePolicy = z.strictObject({
  runs_per_day: Count.optional().describe('most runs started in one UTC day'),
  max_timeout_seconds: Count.optional().describe('highest timeout_seconds a run may ask for; a run without one gets the smaller of 30 and this'),
});

/** The memory part of a policy. */
export const MemoryPolicy = z.strictObject({
  max_memories: Count.optional().describe('most memories stored with POST /v1/memory (file chunks do not count)'),
});

/**
 * An agent's policy (DECISIONS.md, Policies): a whole document, replaced by each PUT. `{}` and zero
 * limits are valid (a zero forbids).
 */
export const Policy = z.strictObject({
  wallet: WalletPolicy.optional(),
  email: EmailPolicy.optional(),
  phone: PhonePolicy.optional(),
  compute: ComputePolicy.optional(),
  memory: MemoryPolicy.optional(),
});
export type Policy = z.infer<typeof Policy>;

/** Answer of every policy read and write: the document, or null when the agent has none. */
export const PolicyAnswer = z.object({ policy: Policy.nullable() });
export type PolicyAnswer = z.infer<typeof PolicyAnswer>;

/** Path of the control-plane policy routes: an agent by name. */
export const AgentNameParams = z.strictObject({ name: z.string().min(1).max(64) });

/** Path of the admin policy routes: an agent by id. */
export const AgentIdParams = z.strictObject({ agent_id: z.string().min(1).max(64) });
