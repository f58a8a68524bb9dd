/** Collects one stream's text up to a byte cap; what comes past it is dropped and remembered. */
export class OutputSink {
  private parts: string[] = [];
  private bytes = 0;
  /** Whether something was dropped. */
  truncated = false;

  constructor(private readonly limitBytes: number) {}

  /** Adds text; returns the part kept (empty once the cap is reached). */
  push(text: string): string {
    if (this.truncated || text.length === 0) {
      if (text.length > 0) this.truncated = true;
      return '';
    }
    const size = Buffer.byteLength(text, 'utf8');
    if (this.bytes + size <= this.limitBytes) {
      this.parts.push(text);
      this.bytes += size;
      return text;
    }
    // Cut at a character boundary that fits.
    const room = this.limitBytes - this.bytes;
    const kept = Buffer.from(text, 'utf8')
      .subarray(0, room)
      .toString('utf8')
      .replace(/\uFFFD$/, '');
    this.parts.push(kept);
    this.bytes += Buffer.byteLength(kept, 'utf8');
    this.truncated = true;
    return kept;
  }

  /** The text kept. */
  text(): string {
    if (this.parts.length > 1) this.parts = [this.parts.join('')];
    return this.parts[0] ?? '';
  }
}

/** Ends `stderr` with one line, starting it on a new line when needed. */
export function appendLine(stderr: string, line: string): string {
  return `${stderr}${stderr === '' || stderr.endsWith('\n') ? '' : '\n'}${line}\n`;
}
