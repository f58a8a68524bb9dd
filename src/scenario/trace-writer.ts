import { createHash, type Hash } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';

/** Characters gathered before they are hashed and written (fewer, larger writes). */
const FLUSH_AT = 1 << 20;

/**
 * The JSONL trace of a run: one JSON object per line, hashed with SHA-256 as it is written and,
 * when a path is given, written to that file. Nothing in a line may come from the wall clock or
 * the process, so the same run gives the same bytes and the same hash.
 */
export class TraceWriter {
  private readonly hash: Hash = createHash('sha256');
  private readonly fd: number | null;
  private pending: string[] = [];
  private pendingChars = 0;
  private lineCount = 0;
  private byteCount = 0;
  private digest: string | null = null;

  /** @throws Error (ENOENT, EACCES, ...) when the file cannot be created */
  constructor(path: string | undefined) {
    this.fd = path === undefined ? null : openSync(path, 'w');
  }

  /** Appends one record as a line. @throws Error after {@link TraceWriter.finish} */
  write(record: object): void {
    this.writeLine(JSON.stringify(record));
  }

  /** Appends one line of JSON text made by the caller (without its line break). @throws Error after {@link TraceWriter.finish} */
  writeLine(json: string): void {
    if (this.digest !== null) throw new Error('the trace is finished');
    const line = `${json}\n`;
    this.pending.push(line);
    this.pendingChars += line.length;
    this.lineCount += 1;
    if (this.pendingChars >= FLUSH_AT) this.flush();
  }

  /** Lines written so far. */
  get lines(): number {
    return this.lineCount;
  }

  /** Bytes written so far (after the last flush). */
  get bytes(): number {
    return this.byteCount;
  }

  /** Flushes, closes the file and answers the hex SHA-256 of every byte written. Idempotent. */
  finish(): string {
    if (this.digest !== null) return this.digest;
    this.flush();
    if (this.fd !== null) closeSync(this.fd);
    this.digest = this.hash.digest('hex');
    return this.digest;
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const chunk = Buffer.from(this.pending.join(''), 'utf8');
    this.pending = [];
    this.pendingChars = 0;
    this.hash.update(chunk);
    this.byteCount += chunk.length;
    if (this.fd !== null) {
      let offset = 0;
      while (offset < chunk.length) offset += writeSync(this.fd, chunk, offset);
    }
  }
}
