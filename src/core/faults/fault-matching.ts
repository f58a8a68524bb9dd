import type { FaultOperation, OperationField } from '../ports/faults.js';
import type { MatchValue } from './faults.schema.js';

const same = (field: string | number | boolean, wanted: MatchValue) => String(field).toLowerCase() === String(wanted).toLowerCase();

/** Whether one field of an operation has the wanted value (a list field: contains it); case-insensitive. */
function fieldMatches(field: OperationField | undefined, wanted: MatchValue): boolean {
  if (field === undefined || field === null) return false;
  if (Array.isArray(field)) return field.some((item) => same(item, wanted));
  return same(field as string | number | boolean, wanted);
}

/** Whether an operation has every field of `match` (`agent_id` included); an empty match takes every operation. */
export function operationMatches(match: Readonly<Record<string, MatchValue>>, operation: FaultOperation): boolean {
  for (const [key, wanted] of Object.entries(match)) {
    const field = key === 'agent_id' ? operation.agent_id : Object.hasOwn(operation.fields, key) ? operation.fields[key] : undefined;
    if (!fieldMatches(field, wanted)) return false;
  }
  return true;
}

/** A uniform draw in [0, 1) from four random bytes. */
export function drawUnit(bytes: Uint8Array): number {
  return (((bytes[0]! << 24) >>> 0) + (bytes[1]! << 16) + (bytes[2]! << 8) + bytes[3]!) / 2 ** 32;
}
