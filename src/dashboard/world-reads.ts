import type { ServiceEvent } from '../core/ports/event-log.js';
import type { AgentRecord } from '../core/identity/identity.service.js';
import { MEMORIES, type MemoryRecord } from '../core/memory/memory-records.js';
import { MESSAGES, messageView, ownedKey, type StoredMessage } from '../core/email/email.records.js';
import type { EmailMessage } from '../core/email/email.schema.js';
import type { Runtime } from '../runtime/create-runtime.js';

/**
 * Reads of a world that no agent route answers (which agents exist, an agent's memories without
 * a query) or that a route answers with a side effect (opening a message marks it read): the
 * dashboard must watch without changing what it watches. Everything else goes through
 * `runtime.actAs`, so pages show the API's own shapes.
 */

/** Collections of the identity, wallet and event log areas read here. */
const AGENTS = 'agents';
const AGENT_NAMES = 'agent_names';
const INVOICES = 'invoices';

/** Every agent of the world, oldest first. */
export function listAgents(runtime: Runtime): Promise<AgentRecord[]> {
  return runtime.view.all<AgentRecord>(AGENTS);
}

/** The agent named `name`, or undefined. */
export async function agentNamed(runtime: Runtime, name: string): Promise<AgentRecord | undefined> {
  const entry = await runtime.view.get<{ agent_id: string }>(AGENT_NAMES, name);
  return entry ? await runtime.view.get<AgentRecord>(AGENTS, entry.agent_id) : undefined;
}

/** The agent with id `agentId`, or undefined. */
export function agentById(runtime: Runtime, agentId: string): Promise<AgentRecord | undefined> {
  return runtime.view.get<AgentRecord>(AGENTS, agentId);
}

/** A memory as the dashboard lists it (a search result without `score`). */
export interface ListedMemory {
  id: string;
  content: string;
  metadata: MemoryRecord['metadata'];
  created_at: string;
}

/** The agent's newest memories. */
export async function recentMemories(runtime: Runtime, agentId: string, limit: number): Promise<{ memories: ListedMemory[]; total: number }> {
  const [page, total] = await Promise.all([runtime.view.page<MemoryRecord>(MEMORIES, { partition: agentId, limit }), runtime.view.count(MEMORIES, agentId)]);
  return {
    memories: page.items.map(({ record }) => ({ id: record.memory_id, content: record.content, metadata: record.metadata, created_at: record.created_at })),
    total,
  };
}

/** Ids of the agent's newest invoices (each is then read through `GET /v1/wallet/invoices/{id}`). */
export async function recentInvoiceIds(runtime: Runtime, agentId: string, limit: number): Promise<string[]> {
  return (await runtime.view.page<{ invoice_id: string }>(INVOICES, { partition: agentId, limit })).items.map(({ record }) => record.invoice_id);
}

/** One of the agent's messages in the API's shape, without marking it read; undefined when it has none by that id. */
export async function peekMessage(runtime: Runtime, agentId: string, messageId: string): Promise<EmailMessage | undefined> {
  const stored = await runtime.view.get<StoredMessage>(MESSAGES, ownedKey(agentId, messageId));
  return stored ? messageView(stored, runtime.config.filesUrl) : undefined;
}

/**
 * The sequence number of the newest event a reader may read up to now (0 when there is none): on
 * a PostgreSQL world, below which no number is still held by a transaction under way.
 */
export function lastEventSeq(runtime: Runtime): Promise<number> {
  return runtime.sim.lastEventSeq();
}

/**
 * The newest events that satisfy `match`, newest first: read backwards through the event log in
 * pages, stopping after `limit` matches or `maxScan` events looked at (a filter that matches little
 * on a long log shows what the newest part holds rather than reading all of it).
 */
export async function recentEvents(runtime: Runtime, match: (event: ServiceEvent) => boolean, limit: number, maxScan = 20_000): Promise<ServiceEvent[]> {
  const found: ServiceEvent[] = [];
  const chunk = 500;
  let end = await lastEventSeq(runtime);
  let scanned = 0;
  while (end > 0 && found.length < limit && scanned < maxScan) {
    const start = Math.max(0, end - chunk);
    const page = (await runtime.sim.events(start, end - start)).events as ServiceEvent[];
    for (let index = page.length - 1; index >= 0 && found.length < limit; index--) {
      if (match(page[index]!)) found.push(page[index]!);
    }
    scanned += end - start;
    end = start;
  }
  return found;
}
