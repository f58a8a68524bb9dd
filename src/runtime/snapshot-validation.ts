import { ApiError } from '../core/shared/api-error.js';
import { shown } from '../core/shared/schemas.js';

/*
 * What `POST /_sim/restore` checks before it touches anything: every row of every collection has
 * the store's shape (`[id, partition, position, record]`, ids unique, positions below the
 * collection's `nextPosition`), and the records of the collections the services read without
 * further checks (agents and their keys, wallets and their history, memories, files, phone lines,
 * events, webhooks) fit their record schema. A bad snapshot is refused with the path of its first
 * bad row and the world is left as it was. One pass, no copies, plain checks rather than a schema library (zod cost 3 to 5 times a
 * JSON.parse of the same rows).
 */

/** A field check: undefined when the value fits, else what was expected. */
type Check = (value: unknown) => string | undefined;

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;
const DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;
const E164 = /^\+[1-9][0-9]{1,14}$/;
const SHA256 = /^[0-9a-f]{64}$/;

const id: Check = (v) => (typeof v === 'string' && v !== '' ? undefined : 'expected a non-empty string');
const text: Check = (v) => (typeof v === 'string' ? undefined : 'expected a string');
const matching =
  (pattern: RegExp, what: string): Check =>
  (v) =>
    typeof v === 'string' && pattern.test(v) ? undefined : `expected ${what}`;
const timestamp = matching(TIMESTAMP, 'an ISO 8601 timestamp');
const decimal = matching(DECIMAL, 'a decimal string');
const oneOf =
  (...values: string[]): Check =>
  (v) =>
    typeof v === 'string' && values.includes(v) ? undefined : `expected one of ${values.join(', ')}`;
const nullable =
  (check: Check): Check =>
  (v) =>
    v === null ? undefined : check(v);
const integerFrom =
  (min: number): Check =>
  (v) =>
    Number.isInteger(v) && (v as number) >= min ? undefined : `expected an integer from ${min}`;
const boolean: Check = (v) => (typeof v === 'boolean' ? undefined : 'expected a boolean');
const plainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const anyObject: Check = (v) => (plainObject(v) ? undefined : 'expected an object');
const stringArray: Check = (v) => (Array.isArray(v) && v.every((item) => typeof item === 'string') ? undefined : 'expected an array of strings');
/** An object whose every value passes `check`; the fault names the key. */
const recordOf =
  (check: Check): ((v: unknown) => [string | undefined, string] | undefined) =>
  (v) => {
    if (!plainObject(v)) return [undefined, 'expected an object'];
    for (const key in v) {
      if (!Object.prototype.hasOwnProperty.call(v, key)) continue;
      const problem = check(v[key]);
      if (problem) return [key, problem];
    }
    return undefined;
  };

type FieldCheck = Check | ReturnType<typeof recordOf>;

/** Record shapes of the collections the services trust once stored: field name to check. */
const RECORD_SCHEMAS: Record<string, Record<string, FieldCheck>> = {
  agents: { agent_id: id, name: id, handle: id, email: id, display_name: text, created_at: timestamp },
  agent_names: { agent_id: id },
  api_keys: { agent_id: id },
  wallets: { agent_id: id, balances: recordOf(decimal), updated_at: timestamp },
  wallet_transactions: { id, direction: oneOf('in', 'out'), amount: decimal, asset: id, status: id, created_at: timestamp },
  memories: { memory_id: id, agent_id: id, content: text, metadata: recordOf(text), created_at: timestamp },
  memory_files: { file_id: id, agent_id: id, name: text, size: integerFrom(0), sha256: matching(SHA256, 'a SHA-256 in hex'), indexed: boolean, created_at: timestamp },
  phone_lines: { agent_id: id, phone_number: matching(E164, 'an E.164 number'), country: text },
  phone_numbers: { agent_id: id },
  events: { seq: integerFrom(1), type: id, agent_id: nullable(text), at: timestamp, data: anyObject },
  webhooks: { url: text, events: stringArray },
};

/** The first fault of a record against its shape: the field path and what was expected. */
function recordFault(record: Record<string, unknown>, shape: Record<string, FieldCheck>): [string, string, unknown] | undefined {
  for (const field in shape) {
    const value = record[field];
    const result = shape[field]!(value);
    if (result === undefined) continue;
    if (typeof result === 'string') return [field, result, value];
    const [key, problem] = result;
    return key === undefined ? [field, problem, value] : [`${field}.${key}`, problem, (value as Record<string, unknown>)[key]];
  }
  return undefined;
}

/** Names of the collections whose records are checked against a schema (for tests and docs). */
export const CHECKED_COLLECTIONS: readonly string[] = Object.keys(RECORD_SCHEMAS);

/** The snapshot's store part, as `RuntimeSnapshot` describes it. */
interface StorePart {
  collections: Record<string, { nextPosition: number; rows: Array<[string, string, number, unknown]> }>;
}

/**
 * Checks every row of a snapshot's store before a restore.
 * @throws ApiError 400 invalid_request whose `param` is the path of the first bad row (or field)
 */
export function validateSnapshotRows(store: StorePart): void {
  for (const [name, collection] of Object.entries(store.collections)) {
    const schema = RECORD_SCHEMAS[name];
    const seen = new Set<string>();
    const rows = collection.rows;
    for (let i = 0; i < rows.length; i++) {
      const [rowId, , position, record] = rows[i]!;
      const at = `store.collections.${name}.rows.${i}`;
      if (rowId === '') fail(`${at}.0`, 'expected a non-empty id, got ""');
      if (seen.has(rowId)) fail(`${at}.0`, `expected an id unique in ${name}, got ${shown(rowId)} a second time`);
      seen.add(rowId);
      if (position >= collection.nextPosition) fail(`${at}.2`, `expected a position below nextPosition ${collection.nextPosition}, got ${position}`);
      if (record === null || typeof record !== 'object' || Array.isArray(record)) fail(`${at}.3`, `expected a record object, got ${shown(record)}`);
      if (!schema) continue;
      const fault = recordFault(record as Record<string, unknown>, schema);
      if (fault) fail(`${at}.3.${fault[0]}`, `not a valid ${name} record: ${fault[1]}, got ${shown(fault[2])}`);
    }
  }
}

function fail(param: string, message: string): never {
  throw new ApiError('invalid_request', `${param}: ${message}`, param);
}
