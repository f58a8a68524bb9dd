import { z } from 'zod';
import { dictionary, intParam, timestamp } from '../shared/schemas.js';

/** Most pairs in one metadata object. */
export const METADATA_MAX_PAIRS = 100;
/** Longest metadata key, in characters. */
export const METADATA_KEY_MAX = 256;
/** Longest metadata value, in characters. */
export const METADATA_VALUE_MAX = 8192;

/** Metadata: string keys and string values only (SPEC.md); a non-string value fails at `metadata.<key>`. */
export const Metadata = dictionary(z.string().min(1).max(METADATA_KEY_MAX), z.string().max(METADATA_VALUE_MAX), METADATA_MAX_PAIRS);
export type Metadata = Record<string, string>;

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
  url: z.string().describe("{files_url}/files/{file_id}; only with the owning agent's key"),
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
