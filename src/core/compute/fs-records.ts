/** Collection of filesystem entries, partitioned by agent; id = `<agent_id>:<path>`. */
export const FS_ENTRIES = 'compute_fs_entries';
/** Collection of per-agent byte usage, id = agent id. */
export const FS_USAGE = 'compute_fs_usage';

/** One stored file or directory of an agent's filesystem. */
export interface FsEntryRecord {
  agent_id: string;
  /** Normalised absolute path. */
  path: string;
  type: 'file' | 'directory';
  /** Bytes of a file; 0 for a directory. */
  size: number;
  /** The file's blob; absent for a directory. */
  sha256?: string;
  modified_at: string;
}

/** Bytes an agent's files take. */
export interface FsUsageRecord {
  agent_id: string;
  bytes: number;
}

/** The store id of an agent's entry. */
export function entryId(agentId: string, path: string): string {
  return `${agentId}:${path}`;
}
