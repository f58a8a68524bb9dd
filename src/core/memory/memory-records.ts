import type { Metadata } from './memory.schema.js';

/** Collection of memories, partitioned by owning agent. */
export const MEMORIES = 'memories';
/** Collection of drive files, partitioned by owning agent. */
export const FILES = 'memory_files';

/** A memory as stored. The vector is kept with it (base64 float32), so a restart needs no re-embedding. */
export interface MemoryRecord {
  memory_id: string;
  agent_id: string;
  content: string;
  metadata: Metadata;
  created_at: string;
  /** The embedder's `model` the vector came from. */
  embedding_model: string;
  /** L2-normalised vector, base64 of little-endian float32. */
  vector: string;
}

/** A drive file as stored; its bytes are in the blob store under `sha256`. */
export interface FileRecord {
  file_id: string;
  agent_id: string;
  name: string;
  size: number;
  sha256: string;
  content_type: string;
  indexed: boolean;
  /** How many memories its text became. */
  chunks: number;
  created_at: string;
}
