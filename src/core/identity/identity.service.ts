import { inject, injectable } from '../shared/di.js';
import { Clock } from '../ports/clock.js';
import { EventLog } from '../ports/event-log.js';
import { IssuerKeys } from '../ports/issuer-keys.js';
import { Random } from '../ports/random.js';
import { Store, type StoreTransaction, type StoreView } from '../ports/store.js';
import { ApiError, notFound } from '../shared/api-error.js';
import { sha256Hex } from '../shared/json.js';
import { ServiceConfig } from '../shared/service-config.js';
import { toIso } from '../shared/time.js';
import { identityCredential, issuerDid, issuerKeyId } from './credentials.js';
import { RESERVED_NAMES, type CreateAgentBody, type CreatedAgent, type Credential, type CredentialList, type DidDocument, type Profile, type PublicProfile, type UpdateProfileBody } from './identity.schema.js';
import { insertApiKey, KEYS, keyLive, newApiKey, type ApiKeyRecord } from './api-keys.js';
import { computeReputation, counterCeiling, type ActivityCounters } from './reputation.js';

const AGENTS = 'agents';
const NAMES = 'agent_names';
const CREDENTIALS = 'credentials';
const ACTIVITY = 'activity';

/** How many key hashes are remembered before the memo starts over. */
const KEY_HASH_MEMO = 4096;

/** An agent as stored. The API key itself is never stored, only its SHA-256. */
export interface AgentRecord {
  agent_id: string;
  name: string;
  handle: string;
  email: string;
  display_name: string;
  bio: string | null;
  avatar_url: string | null;
  created_at: string;
  created_ms: number;
  /** Set while the operator has suspended the agent (live admin API); absent when active. */
  suspended?: boolean;
  /** When keys stored before keys were managed stop working (set by the first rotation); absent while they work. */
  legacy_keys_end_ms?: number;
}

/**
 * Work other areas do inside the transaction that creates an agent (opening balances, a phone
 * number). `request` is the whole validated creation body, including the areas' own fields.
 * Hooks run one after another, in registration order, each awaited before the next starts.
 * A hook that throws an ApiError aborts the creation with nothing changed. What a hook returns is
 * merged into the creation answer (the phone area answers `{phone_number}`).
 */
export type AgentCreatedHook = (tx: StoreTransaction, agent: AgentRecord, request: Readonly<Record<string, unknown>>) => Promise<Readonly<Record<string, string>> | void>;

/**
 * Agents and their identity: creation with an API key shown once, authentication, the profile,
 * the public profile, reputation and verifiable credentials signed by the service's issuer key.
 */
@injectable()
export class IdentityService {
  private readonly createdHooks: AgentCreatedHook[] = [];
  /** SHA-256 of recently seen API keys: every request authenticates, the hash need not be redone. */
  private readonly keyHashes = new Map<string, string>();

  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    @inject(Random) private readonly random: Random,
    @inject(EventLog) private readonly events: EventLog,
    @inject(IssuerKeys) private readonly keys: IssuerKeys,
    @inject(ServiceConfig) private readonly config: ServiceConfig,
  ) {}

  /** Lets another area add to agent creation, inside the same transaction. */
  onAgentCreated(hook: AgentCreatedHook): void {
    this.createdHooks.push(hook);
  }

  /**
   * Creates an agent with a fresh API key and an identity credential.
   * @throws ApiError 400 invalid_request (reserved name), 409 already_exists
   */
  async createAgent(body: CreateAgentBody & Record<string, unknown>): Promise<CreatedAgent> {
    if (RESERVED_NAMES.has(body.name)) throw new ApiError('invalid_request', `name: "${body.name}" is reserved`, 'name');
    await this.assertNameFree(this.store.view, body.name);
    const domain = this.config.serviceDomain;
    const agentId = this.random.id('agent');
    const apiKey = newApiKey(this.random);
    const credentialId = this.random.id('credential');
    const nowMs = this.clock.now();
    const agent: AgentRecord = {
      agent_id: agentId,
      name: body.name,
      handle: `${body.name}.${domain}`,
      email: `${body.name}@${domain}`,
      display_name: body.display_name ?? body.name,
      bio: body.bio ?? null,
      avatar_url: null,
      created_at: toIso(nowMs),
      created_ms: nowMs,
    };
    const credential = identityCredential({ credentialId, serviceDomain: domain, agentId, handle: agent.handle, validFrom: agent.created_at });
    const jwt = await this.keys.signJws(credential, { typ: 'vc+jwt', kid: issuerKeyId(domain) });
    const extra: Record<string, string> = {};
    await this.store.transaction(async (tx) => {
      await this.assertNameFree(tx, body.name);
      await tx.insert(AGENTS, agentId, agent);
      await tx.insert(NAMES, body.name, { agent_id: agentId });
      await insertApiKey(tx, agentId, apiKey, agent.created_at, false);
      const stored: Credential & { agent_id: string } = { credential_id: credentialId, format: 'vc+jwt', credential, jwt, agent_id: agentId };
      await tx.insert(CREDENTIALS, credentialId, stored, agentId);
      await this.events.append(tx, { type: 'agent.created', agent_id: agentId, data: { handle: agent.handle } });
      await this.events.append(tx, { type: 'credential.issued', agent_id: agentId, data: { credential_id: credentialId, type: 'AgentIdentityCredential' } });
      for (const hook of this.createdHooks) Object.assign(extra, await hook(tx, agent, body));
    });
    return { agent_id: agentId, handle: agent.handle, email: agent.email, ...extra, api_key: apiKey };
  }

  /**
   * The agent id an API key belongs to, or undefined for an unknown, revoked or expired key.
   * @throws ApiError 403 agent_suspended when the operator suspended its agent
   */
  agentForApiKey(apiKey: string): Promise<string | undefined> {
    let hash = this.keyHashes.get(apiKey);
    if (hash === undefined) {
      hash = sha256Hex(apiKey);
      if (this.keyHashes.size >= KEY_HASH_MEMO) this.keyHashes.clear();
      this.keyHashes.set(apiKey, hash);
    }
    // A handler on the read rather than an async frame: every agent request passes here.
    return this.store.view.get<ApiKeyRecord>(KEYS, hash).then((key) => {
      if (!key || !keyLive(key, this.clock.now())) return undefined;
      if (key.key_hash === undefined) return this.legacyKeyAgent(key.agent_id);
      if (key.suspended) throw new ApiError('agent_suspended', 'this agent is suspended by the operator');
      return key.agent_id;
    });
  }

  /**
   * The agent of a key stored before keys were managed (its record holds only `agent_id`, in no
   * agent's partition, so the admin API cannot list it): it follows its agent's record, which
   * says whether the agent is suspended and when a rotation ended such keys.
   * @throws ApiError 403 agent_suspended
   */
  private async legacyKeyAgent(agentId: string): Promise<string | undefined> {
    const agent = await this.store.view.get<AgentRecord>(AGENTS, agentId);
    if (!agent) return undefined;
    if (agent.legacy_keys_end_ms !== undefined && this.clock.now() >= agent.legacy_keys_end_ms) return undefined;
    if (agent.suspended) throw new ApiError('agent_suspended', 'this agent is suspended by the operator');
    return agentId;
  }

  /**
   * The stored agent, for other areas; read through `view`, the caller's transaction inside one
   * (a read through `store.view` there would wait for that transaction). @throws ApiError 404 not_found
   */
  agent(agentId: string, view: StoreView = this.store.view): Promise<AgentRecord> {
    // A handler on the read rather than an async frame: a send asks this for its sender.
    return view.get<AgentRecord>(AGENTS, agentId).then(foundAgent);
  }

  /** The agent a handle (with or without the domain suffix) or name names, if any. */
  async findByHandle(handle: string): Promise<AgentRecord | undefined> {
    const lower = handle.toLowerCase();
    const suffix = `.${this.config.serviceDomain}`;
    const name = lower.endsWith(suffix) ? lower.slice(0, -suffix.length) : lower;
    const entry = await this.store.view.get<{ agent_id: string }>(NAMES, name);
    // Awaited, not returned: an async function that returns a promise takes two more ticks to follow it.
    return entry ? await this.store.view.get<AgentRecord>(AGENTS, entry.agent_id) : undefined;
  }

  /** The full profile of the calling agent. @throws ApiError 404 not_found */
  async profile(agentId: string): Promise<Profile> {
    return this.toProfile(await this.agent(agentId));
  }

  /**
   * Changes only the given profile fields and answers the full profile.
   * @throws ApiError 404 not_found
   */
  async updateProfile(agentId: string, body: UpdateProfileBody): Promise<Profile> {
    const changed = Object.keys(body).filter((key) => (body as Record<string, unknown>)[key] !== undefined);
    const updated = await this.store.transaction(async (tx) => {
      const current = await tx.get<AgentRecord>(AGENTS, agentId);
      if (!current) throw notFound('agent');
      if (changed.length === 0) return current;
      const next: AgentRecord = {
        ...current,
        ...(body.display_name === undefined ? {} : { display_name: body.display_name }),
        ...(body.bio === undefined ? {} : { bio: body.bio }),
        ...(body.avatar_url === undefined ? {} : { avatar_url: body.avatar_url }),
      };
      await tx.update(AGENTS, agentId, next);
      await this.events.append(tx, { type: 'agent.updated', agent_id: agentId, data: { fields: changed } });
      return next;
    });
    return this.toProfile(updated);
  }

  /** The public profile of any agent, without email. @throws ApiError 404 not_found */
  async publicProfile(handle: string): Promise<PublicProfile> {
    const agent = await this.findByHandle(handle);
    if (!agent) throw notFound('agent');
    const { email: _email, ...rest } = await this.toProfile(agent);
    return rest;
  }

  /** The calling agent's credentials, oldest first. */
  async credentials(agentId: string): Promise<CredentialList> {
    const rows = await this.store.view.page<Credential & { agent_id: string }>(CREDENTIALS, { partition: agentId, limit: Number.MAX_SAFE_INTEGER });
    return {
      credentials: rows.items.reverse().map(({ record: { agent_id: _owner, ...credential } }) => credential),
    };
  }

  /** The issuer's DID document, so any verifier can check credentials with stock JOSE tools. */
  didDocument(): DidDocument {
    const did = issuerDid(this.config.serviceDomain);
    const keyId = issuerKeyId(this.config.serviceDomain);
    const jwk = Object.fromEntries(Object.entries(this.keys.publicJwk()).filter(([, value]) => typeof value === 'string')) as Record<string, string>;
    return {
      '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1'],
      id: did,
      verificationMethod: [{ id: keyId, type: 'JsonWebKey2020', controller: did, publicKeyJwk: jwk }],
      assertionMethod: [keyId],
      authentication: [keyId],
    };
  }

  /** Tells the store that {@link recordActivity} of these agents follows in this transaction (see StoreTransaction.prefetch). */
  willRecordActivity(tx: StoreTransaction, agentIds: readonly string[]): void {
    tx.prefetch?.(ACTIVITY, agentIds);
  }

  /**
   * Adds to the activity counters of an agent, or of several in the order given (one step for
   * both sides of a book transfer), inside a transaction (reputation input). A counter stops at
   * its ceiling ({@link counterCeiling}), where the score no longer moves: an agent's later
   * actions of that kind write nothing.
   */
  async recordActivity(tx: StoreTransaction, agentIds: string | readonly string[], kind: keyof ActivityCounters, amount = 1): Promise<void> {
    const ids = typeof agentIds === 'string' ? [agentIds] : agentIds;
    // Indexed: an iterator held across the awaits would be an object per step. (A caller that
    // knows the agents early reads them ahead: willRecordActivity.)
    for (let index = 0; index < ids.length; index++) {
      const agentId = ids[index]!;
      const current = await tx.get<ActivityCounters>(ACTIVITY, agentId);
      const count = current?.[kind] ?? 0;
      const ceiling = counterCeiling(kind);
      // At its ceiling a counter no longer moves the score: nothing to write.
      if (count >= ceiling) continue;
      const next = { ...current, [kind]: Math.min(ceiling, count + amount) };
      await (current ? tx.update(ACTIVITY, agentId, next) : tx.insert(ACTIVITY, agentId, next));
    }
  }

  private async toProfile(agent: AgentRecord): Promise<Profile> {
    const [counters, credentialCount] = await Promise.all([this.store.view.get<ActivityCounters>(ACTIVITY, agent.agent_id), this.store.view.count(CREDENTIALS, agent.agent_id)]);
    const reputation = computeReputation({
      counters: counters ?? {},
      hasIdentityCredential: credentialCount > 0,
      profile: { display_name: agent.display_name, bio: agent.bio, avatar_url: agent.avatar_url, default_display_name: agent.name },
      createdMs: agent.created_ms,
      nowMs: this.clock.now(),
    });
    return {
      agent_id: agent.agent_id,
      handle: agent.handle,
      email: agent.email,
      display_name: agent.display_name,
      bio: agent.bio,
      avatar_url: agent.avatar_url,
      reputation,
      created_at: agent.created_at,
    };
  }

  private async assertNameFree(view: StoreView, name: string): Promise<void> {
    if (await view.get(NAMES, name)) throw new ApiError('already_exists', `an agent named "${name}" already exists`, 'name');
  }
}

/** The agent read, or 404 when there is none. @throws ApiError 404 not_found */
function foundAgent(agent: AgentRecord | undefined): AgentRecord {
  if (!agent) throw notFound('agent');
  return agent;
}
