/** One header of a header block, as mailparser's splitter (`@zone-eu/mailsplit`) reads it. */
export interface HeaderLine {
  /** The name, trimmed and lower-cased: the key mailparser files the header under. */
  key: string;
  /** The name as written, trimmed. */
  name: string;
  /** The whole header as written, a fold kept as "\r\n" and the continuation line. */
  line: string;
}

/** Space or tab: a line that starts with one continues the header before it. */
function folds(line: string): boolean {
  return line.charCodeAt(0) === 32 || line.charCodeAt(0) === 9;
}

/**
 * The headers of a header block (its text up to and including the empty line), split as mailsplit's
 * `Headers` splits them, or undefined for a block it reads in some other way or that is not plainly
 * a list of headers: a first line that starts with whitespace, an mbox `From ` or HTTP `POST `
 * preamble, a line without a colon or with no name before it, or a carriage return that is not part
 * of a line break.
 */
export function headerLines(block: string): HeaderLine[] | undefined {
  let end = block.length;
  while (end > 0 && (block.charCodeAt(end - 1) === 10 || block.charCodeAt(end - 1) === 13)) end--;
  const physical = block.slice(0, end).split(/\r?\n/);
  const first = physical[0]!;
  if (folds(first) || /^(?:From|POST) /i.test(first)) return undefined;
  const lines: HeaderLine[] = [];
  for (const text of physical) {
    if (text.includes('\r')) return undefined;
    const last = lines[lines.length - 1];
    if (last && folds(text)) {
      last.line += '\r\n' + text;
      continue;
    }
    const colon = text.indexOf(':');
    const name = text.slice(0, colon).trim();
    if (colon < 0 || name === '') return undefined;
    lines.push({ key: name.toLowerCase(), name, line: text });
  }
  return lines;
}

/** A header's value with its folds undone, trimmed: what libmime's `decodeHeader` answers for it. */
export function unfoldedValue(line: string): string {
  // A line without a fold has no line break to undo ({@link headerLines} refuses a lone carriage return).
  const whole = line.includes('\n') ? line.replace(/(?:\r?\n|\r)[ \t]*/g, ' ').trim() : line.trim();
  return whole.slice(whole.indexOf(':') + 1).trim();
}
