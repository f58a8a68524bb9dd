import type { MessageBuffer } from './message-buffer.js';

const CR = 13;
const LF = 10;
const DOT = 46;
const CR_BYTE = Buffer.from([CR]);

// Where the reader is in the body; kept between reads, so any marker may be split across segments.
/** At the start of a line (after CRLF, or at the start of the body). */
const LINE_START = 0;
/** Inside a line. */
const TEXT = 1;
/** Just after a CR inside a line. */
const AFTER_CR = 2;
/** Just after a dot at the start of a line (the dot is never kept). */
const AFTER_DOT = 3;
/** Just after a dot and a CR at the start of a line (the CR is held back: it may end the body). */
const AFTER_DOT_CR = 4;

/**
 * Reads the body of a `DATA` command (RFC 5321 §4.5.2): removes the dot that starts a line (the
 * sender's dot-stuffing) and finds the end of the body, a line holding only a dot. Lines end at
 * CRLF only: a bare LF is data, so `\n.\n` neither ends the body nor unstuffs a dot, and no command
 * can be smuggled behind a marker the receiver and another MTA would read differently. The CRLF
 * before the final dot is part of the message; the message goes into a {@link MessageBuffer}.
 */
export class DotBodyReader {
  private state = LINE_START;

  /** @param message where the unstuffed bytes go */
  constructor(private readonly message: MessageBuffer) {}

  /**
   * Reads body bytes of `chunk` from `start`. Answers the offset just after the end marker, or -1
   * when all of the chunk was body and more is to come.
   */
  read(chunk: Buffer, start: number): number {
    const length = chunk.length;
    let state = this.state;
    let at = start;
    // Start of the bytes not yet handed to the message.
    let from = start;
    while (at < length) {
      if (state === TEXT) {
        const cr = chunk.indexOf(CR, at);
        if (cr < 0) at = length;
        else {
          at = cr + 1;
          state = AFTER_CR;
        }
      } else if (state === AFTER_CR) {
        const byte = chunk[at];
        if (byte === LF) {
          at++;
          state = LINE_START;
        } else if (byte === CR) at++;
        else state = TEXT;
      } else if (state === LINE_START) {
        if (chunk[at] === DOT) {
          if (at > from) this.message.add(chunk.subarray(from, at));
          from = ++at;
          state = AFTER_DOT;
        } else state = TEXT;
      } else if (state === AFTER_DOT) {
        if (chunk[at] === CR) {
          from = ++at;
          state = AFTER_DOT_CR;
        } else state = TEXT;
      } else if (chunk[at] === LF) {
        this.state = LINE_START;
        return at + 1;
      } else {
        // A line of a dot and more: the CR held back is data after all.
        this.message.add(CR_BYTE);
        state = AFTER_CR;
      }
    }
    if (length > from) this.message.add(chunk.subarray(from, length));
    this.state = state;
    return -1;
  }
}
