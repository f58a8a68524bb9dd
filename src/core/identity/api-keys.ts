import type { Random } from '../ports/random.js';
import type { StoreTransaction } from '../ports/store.js';
import { sha256Hex } from '../shared/json.js';

/** Where API keys live: one record per key, under the key's SHA-256, in its agent's partition. */
export const KEYS = 'api_keys';
/** Characters of randomness in an API key after its `sk_` prefix. */
const API_KEY_LENGTH = 40;
/** Characters of a key shown to operators to tell keys apart (DECISIONS.md: the first 12). */
export const KEY_PREFIX_LENGTH = 12;

/**
 * An API key as stored: never the key, only its hash (the record's id), its first characters,
 * when it was made, when it stops working (a rotation's grace; null while it has no end), and
 * whether its agent is suspended (kept on every key so authentication reads one record).
 * Records of worlds made before keys were rotatable hold only `agent_id`.
 */
export interface ApiKeyRecord {
  agent_id: string;
  /** The record's own id (the key's SHA-256), so a page of an agent's keys can update them. */
  key_hash?: string;
  key_prefix?: string;
  created_at?: string;
  /** Service time (ms) from which the key is refused, or null. */
  expires_ms?: number | null;
  expires_at?: string | null;
  suspended?: boolean;
}

/** A fresh API key: `sk_` and 40 characters from the random port. */
export function newApiKey(random: Random): string {
  return `sk_${random.secret(API_KEY_LENGTH)}`;
}

/** The part of a key operators see. */
export function keyPrefixOf(apiKey: string): string {
  return apiKey.slice(0, KEY_PREFIX_LENGTH);
}

/** Stores a new key of `agentId` inside `tx`. */
export async function insertApiKey(tx: StoreTransaction, agentId: string, apiKey: string, createdAt: string, suspended: boolean): Promise<void> {
  const hash = sha256Hex(apiKey);
  const record: ApiKeyRecord = { agent_id: agentId, key_hash: hash, key_prefix: keyPrefixOf(apiKey), created_at: createdAt, expires_ms: null, expires_at: null, ...(suspended ? { suspended: true } : {}) };
  await tx.insert(KEYS, hash, record, agentId);
}

/** Whether a stored key still works at service time `nowMs`. */
export function keyLive(record: ApiKeyRecord, nowMs: number): boolean {
  return record.expires_ms === undefined || record.expires_ms === null || nowMs < record.expires_ms;
}
