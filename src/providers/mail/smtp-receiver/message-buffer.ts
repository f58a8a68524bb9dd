/**
 * The bytes of one message as they arrive, kept only up to a size limit: past it nothing more is
 * kept (the rest is still counted), so an oversized message costs no memory while it is drained.
 */
export class MessageBuffer {
  private parts: Buffer[] = [];
  /** Bytes received so far, kept or not. */
  size = 0;

  /** @param limit the largest message kept, in bytes */
  constructor(private readonly limit: number) {}

  /** Whether the message has grown past the limit. */
  get overLimit(): boolean {
    return this.size > this.limit;
  }

  /** Appends `part` (held by reference: the caller does not reuse it). */
  add(part: Buffer): void {
    this.size += part.length;
    if (this.size > this.limit) this.parts = [];
    else this.parts.push(part);
  }

  /** The message's bytes (empty once over the limit). */
  bytes(): Buffer {
    return this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size);
  }
}
