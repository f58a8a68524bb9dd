import { BlobStore } from '../ports/blob-store.js';
import { Clock } from '../ports/clock.js';
import type { SandboxChanges, SandboxEntry } from '../ports/sandbox.js';
import { Store, type StoreTransaction, type StoreView } from '../ports/store.js';
import { ApiError, notFound } from '../shared/api-error.js';
import { blobBytes } from '../services/blob-bytes.js';
import { inject, injectable } from '../shared/di.js';
import { parseIso, toIso } from '../shared/time.js';
import { ComputeConfig } from './compute-config.js';
import { ancestorsOf, isWithin, nameOf, normalisePath, parentOf } from './fs-path.js';
import { FS_ENTRIES, FS_USAGE, entryId, type FsEntryRecord, type FsUsageRecord } from './fs-records.js';
import type { FsContent, FsListing, FsWritten } from './compute.schema.js';

/** Whether text is canonical Base64 with padding (a loop: a regular expression overflows its stack on 100 MB). */
function isBase64(text: string): boolean {
  if (text.length % 4 !== 0) return false;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const end = text.length - padding;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    const ok = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47;
    if (!ok) return false;
  }
  return true;
}

/** Decoded size of canonical Base64 text, computed without decoding it. */
function decodedSize(text: string): number {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return (text.length / 4) * 3 - padding;
}

/**
 * One virtual filesystem per agent: entries in the store (so snapshots, restores and persistence
 * carry the tree) and file bytes in the blob store. `/` always exists; a write creates missing
 * directories; nothing is changed by a refused write.
 */
@injectable()
export class FilesystemService {
  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    @inject(BlobStore) private readonly blobs: BlobStore,
    @inject(ComputeConfig) private readonly config: ComputeConfig,
  ) {}

  /**
   * The entries of a directory, sorted by name.
   * @throws ApiError 400 invalid_request (path), 404 not_found, 409 conflict (a file)
   */
  async list(agentId: string, rawPath: string): Promise<FsListing> {
    const path = normalisePath(rawPath);
    const view = this.store.view;
    if (path !== '/') {
      const self = await view.get<FsEntryRecord>(FS_ENTRIES, entryId(agentId, path));
      if (!self) throw notFound('path');
      if (self.type !== 'directory') throw new ApiError('conflict', `path: ${path} is a file, not a directory`, 'path');
    }
    const children = (await this.entriesUnder(view, agentId, path)).filter((entry) => parentOf(entry.path) === path && entry.path !== '/');
    children.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return {
      path,
      entries: children.map((entry) => ({ name: nameOf(entry.path), path: entry.path, type: entry.type, size: entry.size, modified_at: entry.modified_at })),
    };
  }

  /**
   * Writes a file from Base64, creating missing directories and overwriting a file.
   * @throws ApiError 400 invalid_request (path, content), 409 conflict (a directory at the path or
   *   a file where a directory must be), 413 payload_too_large (over the write limit),
   *   413 quota_exceeded (past the agent's quota)
   */
  async write(agentId: string, rawPath: string, content: string): Promise<FsWritten> {
    const path = normalisePath(rawPath);
    if (!isBase64(content)) throw new ApiError('invalid_request', 'content: expected Base64 text (RFC 4648, with padding)', 'content');
    const size = decodedSize(content);
    if (size > this.config.maxWriteBytes) {
      throw new ApiError('payload_too_large', `content: a write takes at most ${this.config.maxWriteBytes} bytes decoded, got ${size}`, 'content');
    }
    // Refuse before storing any bytes, then again inside the transaction (state may have moved).
    await this.checkWrite(this.store.view, agentId, path, size);
    const blob = await this.blobs.put(Buffer.from(content, 'base64'));
    return this.store.transaction(async (tx) => {
      await this.checkWrite(tx, agentId, path, size);
      const modified_at = toIso(this.clock.now());
      await this.putFile(tx, agentId, path, blob.sha256, blob.size, modified_at);
      return { path, size: blob.size, modified_at };
    });
  }

  /** A file's bytes as Base64. @throws ApiError 400 invalid_request (path), 404 not_found, 409 conflict (a directory) */
  async read(agentId: string, rawPath: string): Promise<FsContent> {
    const path = normalisePath(rawPath);
    const entry = path === '/' ? undefined : await this.store.view.get<FsEntryRecord>(FS_ENTRIES, entryId(agentId, path));
    if (path === '/' || entry?.type === 'directory') throw new ApiError('conflict', `path: ${path} is a directory, not a file`, 'path');
    if (!entry?.sha256) throw notFound('path');
    const chunks: Uint8Array[] = [];
    for await (const chunk of blobBytes(this.blobs, entry.sha256)) chunks.push(chunk);
    return { path, content: Buffer.concat(chunks).toString('base64'), size: entry.size };
  }

  /** Deletes a file, or a directory with everything in it (`/` empties the tree). @throws ApiError 400 invalid_request (path), 404 not_found */
  async remove(agentId: string, rawPath: string): Promise<void> {
    const path = normalisePath(rawPath);
    await this.store.transaction(async (tx) => {
      if (path !== '/' && !(await tx.get<FsEntryRecord>(FS_ENTRIES, entryId(agentId, path)))) throw notFound('path');
      await this.removeTree(tx, agentId, path);
    });
  }

  /** Bytes the agent's files take. */
  async usage(view: StoreView, agentId: string): Promise<number> {
    return (await view.get<FsUsageRecord>(FS_USAGE, agentId))?.bytes ?? 0;
  }

  /** The agent's whole tree with file bytes, as a run starts with it (parents before children). */
  async snapshot(agentId: string): Promise<SandboxEntry[]> {
    const records = await this.entriesUnder(this.store.view, agentId, '/');
    records.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const entries: SandboxEntry[] = [];
    for (const record of records) {
      const modifiedMs = parseIso(record.modified_at) ?? 0;
      if (record.type === 'directory' || !record.sha256) {
        entries.push({ path: record.path, type: 'directory', modifiedMs });
        continue;
      }
      const chunks: Uint8Array[] = [];
      for await (const chunk of blobBytes(this.blobs, record.sha256)) chunks.push(chunk);
      entries.push({ path: record.path, type: 'file', bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), modifiedMs });
    }
    return entries;
  }

  /** Stores the bytes of a run's written files; call before {@link applyChanges}. */
  async storeChanges(changes: SandboxChanges): Promise<Map<string, { sha256: string; size: number }>> {
    const stored = new Map<string, { sha256: string; size: number }>();
    for (const file of changes.files) stored.set(file.path, await this.blobs.put(file.bytes));
    return stored;
  }

  /**
   * Applies a finished run's changes inside the caller's transaction: removals, then directories,
   * then files; the run's view wins over anything in its way (it saw the tree as it was). Answers
   * false, with the transaction to be undone by the caller, when the result would be past the
   * quota (runs in parallel each checked the quota against their own starting tree).
   */
  async applyChanges(tx: StoreTransaction, agentId: string, changes: SandboxChanges, stored: Map<string, { sha256: string; size: number }>): Promise<boolean> {
    const modified_at = toIso(this.clock.now());
    for (const path of changes.removed) if (path !== '/') await this.removeTree(tx, agentId, path);
    for (const path of [...changes.directories].sort()) {
      if (path === '/') continue;
      await this.clearWay(tx, agentId, path);
      if (!(await tx.get(FS_ENTRIES, entryId(agentId, path)))) {
        await tx.insert<FsEntryRecord>(FS_ENTRIES, entryId(agentId, path), { agent_id: agentId, path, type: 'directory', size: 0, modified_at }, agentId);
      }
    }
    for (const file of changes.files) {
      const blob = stored.get(file.path);
      if (!blob || file.path === '/') continue;
      await this.clearWay(tx, agentId, file.path);
      const existing = await tx.get<FsEntryRecord>(FS_ENTRIES, entryId(agentId, file.path));
      if (existing?.type === 'directory') await this.removeTree(tx, agentId, file.path);
      await this.putFile(tx, agentId, file.path, blob.sha256, blob.size, modified_at);
    }
    return (await this.usage(tx, agentId)) <= this.config.quotaBytes;
  }

  /** Makes room for `path`'s ancestors as directories: files in the way are removed. */
  private async clearWay(tx: StoreTransaction, agentId: string, path: string): Promise<void> {
    for (const ancestor of ancestorsOf(path)) {
      const entry = await tx.get<FsEntryRecord>(FS_ENTRIES, entryId(agentId, ancestor));
      if (entry?.type === 'file') await this.removeTree(tx, agentId, ancestor);
    }
  }

  /** @throws ApiError 409 conflict, 413 quota_exceeded */
  private async checkWrite(view: StoreView, agentId: string, path: string, size: number): Promise<void> {
    if (path === '/') throw new ApiError('conflict', 'path: / is a directory', 'path');
    for (const ancestor of ancestorsOf(path)) {
      if ((await view.get<FsEntryRecord>(FS_ENTRIES, entryId(agentId, ancestor)))?.type === 'file') {
        throw new ApiError('conflict', `path: ${ancestor} is a file, so ${path} cannot be created under it`, 'path');
      }
    }
    const existing = await view.get<FsEntryRecord>(FS_ENTRIES, entryId(agentId, path));
    if (existing?.type === 'directory') throw new ApiError('conflict', `path: ${path} is a directory`, 'path');
    const after = (await this.usage(view, agentId)) - (existing?.size ?? 0) + size;
    if (after > this.config.quotaBytes) {
      throw new ApiError('quota_exceeded', `the write would take the filesystem to ${after} bytes, past its quota of ${this.config.quotaBytes}`, 'content');
    }
  }

  /** Creates or replaces a file record (ancestors created as directories) and keeps usage right. */
  private async putFile(tx: StoreTransaction, agentId: string, path: string, sha256: string, size: number, modified_at: string): Promise<void> {
    for (const ancestor of ancestorsOf(path)) {
      if (!(await tx.get(FS_ENTRIES, entryId(agentId, ancestor)))) {
        await tx.insert<FsEntryRecord>(FS_ENTRIES, entryId(agentId, ancestor), { agent_id: agentId, path: ancestor, type: 'directory', size: 0, modified_at }, agentId);
      }
    }
    const id = entryId(agentId, path);
    const existing = await tx.get<FsEntryRecord>(FS_ENTRIES, id);
    const record: FsEntryRecord = { agent_id: agentId, path, type: 'file', size, sha256, modified_at };
    if (existing) await tx.update(FS_ENTRIES, id, record);
    else await tx.insert(FS_ENTRIES, id, record, agentId);
    await this.addUsage(tx, agentId, size - (existing?.size ?? 0));
  }

  /** Removes `path` and everything under it (for `/`, everything but the root). */
  private async removeTree(tx: StoreTransaction, agentId: string, path: string): Promise<void> {
    let freed = 0;
    for (const entry of await this.entriesUnder(tx, agentId, path)) {
      freed += entry.size;
      await tx.remove(FS_ENTRIES, entryId(agentId, entry.path));
    }
    if (freed !== 0) await this.addUsage(tx, agentId, -freed);
  }

  private async addUsage(tx: StoreTransaction, agentId: string, delta: number): Promise<void> {
    const existing = await tx.get<FsUsageRecord>(FS_USAGE, agentId);
    if (existing) await tx.update<FsUsageRecord>(FS_USAGE, agentId, { agent_id: agentId, bytes: existing.bytes + delta });
    else await tx.insert<FsUsageRecord>(FS_USAGE, agentId, { agent_id: agentId, bytes: delta });
  }

  /** The agent's entries at or under `dir` (a walk of the agent's partition). */
  private async entriesUnder(view: StoreView, agentId: string, dir: string): Promise<FsEntryRecord[]> {
    const page = await view.page<FsEntryRecord>(FS_ENTRIES, { partition: agentId, limit: Number.MAX_SAFE_INTEGER });
    return page.items.map((item) => item.record).filter((entry) => isWithin(entry.path, dir));
  }
}
