import { z } from 'zod';
import { intParam, timestamp } from '../shared/schemas.js';

/** Most pairs in one metadata object. */
export const METADATA_MAX_PAIRS = 100;
/** Longest metadata key, in characters. */
export const METADATA_KEY_MAX = 256;
/** Longest metadata value, in characters. */
export const METADATA_VALUE_MAX = 8192;

// zod builds a record's output with plain assignment, where a key `__proto__` sets the prototype
// instead of a pair and the pair is lost. DECISIONS.md makes such keys ordinary data, so the key is
// carried through validation under a stand-in name and put back as an own property.
const PROTO_KEY = '__proto__';
const PROTO_STAND_IN = '__proto__\u0000';

/** A copy of a parsed JSON object with its own `__proto__` key renamed to the stand-in. */
function hideProtoKey(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input) || !Object.hasOwn(input, PROTO_KEY)) return input;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) Object.defineProperty(copy, key === PROTO_KEY ? PROTO_STAND_IN : key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

/** The validated record with the stand-in turned back into an own `__proto__` key. */
function restoreProtoKey(record: Record<string, string>): Record<string, string> {
  if (!Object.hasOwn(record, PROTO_STAND_IN)) return record;
  const copy: Record<string, string> = {};
  for (const [key, value] of Object.entries(record)) Object.defineProperty(copy, key === PROTO_STAND_IN ? PROTO_KEY : key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

/** Metadata: string keys and string values only (SPEC.md); a non-string value fails at `metadata.<key>`; `__proto__` is a key like any other. */
export const Metadata = z.preprocess(
  hideProtoKey,
  z
    .record(z.string().min(1).max(METADATA_KEY_MAX), z.string().max(METADATA_VALUE_MAX))
    .refine((value) => Object.keys(value).length <= METADATA_MAX_PAIRS, { message: `must have at most ${METADATA_MAX_PAIRS} keys` })
    .transform(restoreProtoKey),
);
export type Metadata = z.infer<typeof Metadata>;

/** Body of `POST /v1/memory`. */
export const CreateMemoryBody = z.strictObject({
  content: z.string().min(1),
  metadata: Metadata.optional(),
});
export type CreateMemoryBody = z.infer<typeof CreateMemoryBody>;

/** Answer of `POST /v1/memory`. */
export const CreatedMemory = z.object({ memory_id: z.string(), created_at: timestamp });
export type CreatedMemory = z.infer<typeof CreatedMemory>;

/** Largest `limit` of a search. */
export const SEARCH_LIMIT_MAX = 50;

/** Body of `POST /v1/memory/search`. */
export const SearchMemoriesBody = z.strictObject({
  query: z.string().min(1),
  limit: z.number().int().min(1).max(SEARCH_LIMIT_MAX).default(10),
  metadata_filter: Metadata.optional(),
});
export type SearchMemoriesBody = z.input<typeof SearchMemoriesBody>;

/** One search result. */
export const MemoryResult = z.object({
  id: z.string(),
  content: z.string(),
  score: z.number().min(0).max(1).describe('cosine similarity clamped to 0..1'),
  metadata: z.record(z.string(), z.string()),
  created_at: timestamp,
});
export type MemoryResult = z.infer<typeof MemoryResult>;

/** Answer of `POST /v1/memory/search`, best match first. */
export const SearchMemoriesResult = z.object({ memories: z.array(MemoryResult) });
export type SearchMemoriesResult = z.infer<typeof SearchMemoriesResult>;

/** Path of `DELETE /v1/memory/{id}`. */
export const MemoryIdParams = z.strictObject({ id: z.string().min(1).max(256) });
export type MemoryIdParams = z.infer<typeof MemoryIdParams>;

/** A file of the drive. */
export const FileObject = z.object({
  file_id: z.string(),
  name: z.string(),
  size: z.number().int(),
  url: z.string().describe('{files_url}/files/{file_id}; only with the owning agent\'s key'),
  indexed: z.boolean(),
  created_at: timestamp,
});
export type FileObject = z.infer<typeof FileObject>;

/** Query of `GET /v1/memory/files`. */
export const ListFilesQuery = z.strictObject({
  limit: intParam(1, 100).default(20),
  cursor: z.string().min(1).optional(),
});
export type ListFilesQuery = z.input<typeof ListFilesQuery>;

/** Answer of `GET /v1/memory/files`, newest first. */
export const FileList = z.object({
  files: z.array(FileObject),
  next_cursor: z.string().nullable(),
  total: z.number().int(),
});
export type FileList = z.infer<typeof FileList>;

/** Path of `GET {files_url}/files/{file_id}`. */
export const FileIdParams = z.strictObject({ file_id: z.string().min(1).max(256) });
export type FileIdParams = z.infer<typeof FileIdParams>;
