import { z } from 'zod';
import { httpsUrl, maxChars, timestamp } from '../shared/schemas.js';

/** Names agents are created with; also the left part of handle and email. */
export const AgentName = z.string().regex(/^[a-z0-9][a-z0-9-]{1,31}$/, {
  message: 'must be 2 to 32 characters of a-z, 0-9 and -, starting with a letter or digit',
});

/** Names refused at creation (DECISIONS.md). */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(['credentials', 'admin', 'root', 'support', 'postmaster', 'abuse', 'noreply']);

/** Longest display name. */
export const DISPLAY_NAME_MAX = 64;
/** Longest bio. */
export const BIO_MAX = 280;

/** Body of `POST /_sim/agents`. */
export const CreateAgentBody = z.strictObject({
  name: AgentName,
  display_name: maxChars(DISPLAY_NAME_MAX).min(1).optional(),
  bio: maxChars(BIO_MAX).optional(),
});
export type CreateAgentBody = z.infer<typeof CreateAgentBody>;

/** Answer of agent creation: the API key is shown here once and never again. */
export const CreatedAgent = z.object({
  agent_id: z.string(),
  handle: z.string(),
  email: z.string(),
  /** The agent's E.164 number (phone area). */
  phone_number: z.string().optional(),
  api_key: z.string(),
});
export type CreatedAgent = z.infer<typeof CreatedAgent>;

/** The full profile, seen by the agent itself. */
export const Profile = z.object({
  agent_id: z.string(),
  handle: z.string(),
  email: z.string(),
  display_name: z.string(),
  bio: z.string().nullable(),
  avatar_url: z.string().nullable(),
  reputation: z.number().int().min(0).max(100),
  created_at: timestamp,
});
export type Profile = z.infer<typeof Profile>;

/** The profile other parties see: never the email. */
export const PublicProfile = Profile.omit({ email: true });
export type PublicProfile = z.infer<typeof PublicProfile>;

/** Body of `PATCH /v1/agent`: only given fields change; null clears bio or avatar. */
export const UpdateProfileBody = z.strictObject({
  display_name: maxChars(DISPLAY_NAME_MAX).min(1).optional(),
  bio: maxChars(BIO_MAX).nullable().optional(),
  avatar_url: httpsUrl.nullable().optional(),
});
export type UpdateProfileBody = z.infer<typeof UpdateProfileBody>;

/** Path of `GET /v1/agent/{handle}`. */
export const HandleParams = z.strictObject({ handle: z.string().min(1).max(300) });
export type HandleParams = z.infer<typeof HandleParams>;

/** A W3C VC Data Model 2.0 credential object. */
export const VerifiableCredential = z.object({
  '@context': z.array(z.string()),
  id: z.string(),
  type: z.array(z.string()),
  issuer: z.string(),
  validFrom: z.string(),
  credentialSubject: z.record(z.string(), z.unknown()),
});
export type VerifiableCredential = z.infer<typeof VerifiableCredential>;

/** One credential as the API returns it. */
export const Credential = z.object({
  credential_id: z.string(),
  format: z.literal('vc+jwt'),
  credential: VerifiableCredential,
  jwt: z.string(),
});
export type Credential = z.infer<typeof Credential>;

/** Answer of `GET /v1/agent/credentials`. */
export const CredentialList = z.object({ credentials: z.array(Credential) });
export type CredentialList = z.infer<typeof CredentialList>;

/** The issuer's DID document served at `/.well-known/did.json`. */
export const DidDocument = z.object({
  '@context': z.array(z.string()),
  id: z.string(),
  verificationMethod: z.array(z.object({ id: z.string(), type: z.string(), controller: z.string(), publicKeyJwk: z.record(z.string(), z.string()) })),
  assertionMethod: z.array(z.string()),
  authentication: z.array(z.string()),
});
export type DidDocument = z.infer<typeof DidDocument>;
