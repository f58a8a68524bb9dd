import { inject, injectable } from '../shared/di.js';
import { Clock } from '../ports/clock.js';
import { EventLog } from '../ports/event-log.js';
import { Random } from '../ports/random.js';
import { Store, type StoreView } from '../ports/store.js';
import { ApiError, notFound } from '../shared/api-error.js';
import { decodeCursor, encodeCursor } from '../shared/cursor.js';
import { toIso } from '../shared/time.js';
import type { AdminAgent, AdminAgentPage, AdminAgentsQuery, CreatedKey } from './admin.schema.js';
import { insertApiKey, keyLive, keyPrefixOf, KEYS, newApiKey, type ApiKeyRecord } from './api-keys.js';
import type { AgentRecord } from './identity.service.js';

const AGENTS = 'agents';
/** The store partition agents are inserted in (they are not owned by anything). */
const AGENTS_PARTITION = '';
/** Most keys an agent holds at once; a rotation beyond it is refused (old ones must expire or be revoked). */
const MAX_KEYS = 100;

/**
 * The operator's side of agents (DECISIONS.md, "Operating a live service"): list and show them
 * with their status and keys (never a key), suspend and resume them, rotate keys with a grace
 * period and revoke keys. Nothing here touches money or the clock.
 */
@injectable()
export class AgentAdmin {
  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    @inject(Random) private readonly random: Random,
    @inject(EventLog) private readonly events: EventLog,
  ) {}

  /** Agents, newest first. @throws ApiError 400 invalid_request (a cursor of another list) */
  async list(query: AdminAgentsQuery): Promise<AdminAgentPage> {
    const before = query.cursor === undefined ? undefined : decodeCursor('admin.agents', query.cursor);
    const page = await this.store.view.page<AgentRecord>(AGENTS, { partition: AGENTS_PARTITION, limit: query.limit, ...(before === undefined ? {} : { before }) });
    const agents: AdminAgent[] = [];
    for (const { record } of page.items) agents.push(await this.present(this.store.view, record));
    const last = page.items.at(-1);
    return { agents, next_cursor: page.hasMore && last ? encodeCursor('admin.agents', last.position) : null };
  }

  /** One agent with its status and live keys. @throws ApiError 404 not_found */
  async show(agentId: string): Promise<AdminAgent> {
    return this.present(this.store.view, await this.agent(this.store.view, agentId));
  }

  /** Suspends (or resumes) an agent: its keys answer 403 agent_suspended until it is resumed. @throws ApiError 404 not_found */
  async setSuspended(agentId: string, suspended: boolean): Promise<AdminAgent> {
    return this.store.transaction(async (tx) => {
      const agent = await this.agent(tx, agentId);
      if ((agent.suspended === true) === suspended) return this.present(tx, agent);
      const { suspended: _was, ...rest } = agent;
      const next: AgentRecord = suspended ? { ...rest, suspended: true } : rest;
      await tx.update(AGENTS, agentId, next);
      for (const [hash, key] of await this.keys(tx, agentId)) {
        const { suspended: _keyWas, ...keyRest } = key;
        await tx.update(KEYS, hash, suspended ? { ...keyRest, suspended: true } : keyRest);
      }
      await this.events.append(tx, { type: suspended ? 'agent.suspended' : 'agent.resumed', agent_id: agentId, data: {} });
      return this.present(tx, next);
    });
  }

  /**
   * Makes a new key, shown once. The agent's other keys keep working for `graceSeconds` of
   * service time (0: refused at once); a key whose grace ends sooner keeps its earlier end.
   * @throws ApiError 404 not_found, 409 conflict (the agent already holds the most keys)
   */
  async rotate(agentId: string, graceSeconds: number): Promise<CreatedKey> {
    const apiKey = newApiKey(this.random);
    const nowMs = this.clock.now();
    await this.store.transaction(async (tx) => {
      const agent = await this.agent(tx, agentId);
      // Keys whose grace ended are removed here, so they never pile up.
      for (const [hash] of await this.keys(tx, agentId, true)) await tx.remove(KEYS, hash);
      const keys = await this.keys(tx, agentId);
      if (keys.length >= MAX_KEYS) throw new ApiError('conflict', `the agent already holds ${MAX_KEYS} keys; revoke some first`);
      const endMs = nowMs + graceSeconds * 1000;
      // Keys stored before keys were managed cannot be listed; they end with the others.
      if (agent.legacy_keys_end_ms === undefined || agent.legacy_keys_end_ms > endMs) await tx.update(AGENTS, agentId, { ...agent, legacy_keys_end_ms: endMs });
      for (const [hash, key] of keys) {
        if (graceSeconds === 0) await tx.remove(KEYS, hash);
        else if (key.expires_ms === undefined || key.expires_ms === null || key.expires_ms > endMs) await tx.update(KEYS, hash, { ...key, expires_ms: endMs, expires_at: toIso(endMs) });
      }
      await insertApiKey(tx, agentId, apiKey, toIso(nowMs), agent.suspended === true);
      await this.events.append(tx, { type: 'agent.key_created', agent_id: agentId, data: { key_prefix: keyPrefixOf(apiKey), grace_seconds: graceSeconds } });
    });
    return { api_key: apiKey, key_prefix: keyPrefixOf(apiKey) };
  }

  /**
   * Revokes every key of the agent starting with `keyPrefix` (a 12-character prefix names one key), at once.
   * @throws ApiError 404 not_found (no such agent, or no live key with that prefix)
   */
  async revoke(agentId: string, keyPrefix: string): Promise<void> {
    await this.store.transaction(async (tx) => {
      await this.agent(tx, agentId);
      const matching = (await this.keys(tx, agentId)).filter(([, key]) => key.key_prefix === keyPrefix);
      if (matching.length === 0) throw notFound('key');
      for (const [hash] of matching) await tx.remove(KEYS, hash);
      await this.events.append(tx, { type: 'agent.key_revoked', agent_id: agentId, data: { key_prefix: keyPrefix } });
    });
  }

  /** @throws ApiError 404 not_found */
  private async agent(view: StoreView, agentId: string): Promise<AgentRecord> {
    const agent = await view.get<AgentRecord>(AGENTS, agentId);
    if (!agent) throw notFound('agent');
    return agent;
  }

  /** The agent's keys that still work, oldest first, with their record ids (the keys' hashes). */
  private async keys(view: StoreView, agentId: string, expired = false): Promise<Array<[string, ApiKeyRecord]>> {
    const page = await view.page<ApiKeyRecord>(KEYS, { partition: agentId, order: 'oldest', limit: MAX_KEYS * 2 });
    const nowMs = this.clock.now();
    return page.items.flatMap(({ record }) => (record.key_hash !== undefined && keyLive(record, nowMs) !== expired ? [[record.key_hash, record] as [string, ApiKeyRecord]] : []));
  }

  private async present(view: StoreView, agent: AgentRecord): Promise<AdminAgent> {
    const keys = await this.keys(view, agent.agent_id);
    return {
      agent_id: agent.agent_id,
      name: agent.name,
      handle: agent.handle,
      email: agent.email,
      display_name: agent.display_name,
      status: agent.suspended ? 'suspended' : 'active',
      created_at: agent.created_at,
      keys: keys.map(([, key]) => ({ key_prefix: key.key_prefix ?? '', created_at: key.created_at ?? null, expires_at: key.expires_at ?? null })),
    };
  }
}
