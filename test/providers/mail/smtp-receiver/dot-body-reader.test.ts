import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DotBodyReader } from '../../../../src/providers/mail/smtp-receiver/dot-body-reader.js';
import { MessageBuffer } from '../../../../src/providers/mail/smtp-receiver/message-buffer.js';

/** Feeds `wire` to a fresh reader in the pieces cut at `cuts`; answers the message and what followed the end. */
function readIn(wire: Buffer, cuts: number[], limit = 1 << 20): { message: string; after: string; overLimit: boolean } | null {
  const buffer = new MessageBuffer(limit);
  const reader = new DotBodyReader(buffer);
  const bounds = [0, ...cuts, wire.length];
  for (let i = 0; i < bounds.length - 1; i++) {
    const piece = wire.subarray(bounds[i], bounds[i + 1]);
    const end = reader.read(piece, 0);
    if (end >= 0) {
      return { message: buffer.bytes().toString('latin1'), after: Buffer.concat([piece.subarray(end), wire.subarray(bounds[i + 1])]).toString('latin1'), overLimit: buffer.overLimit };
    }
  }
  return null;
}

/** Dot-stuffs a message whose lines end in CRLF and appends the end marker. */
const stuffed = (message: string) => `${message.replace(/(^|\r\n)\./g, '$1..')}.\r\n`;

const TRICKY = 'Subject: dots\r\n\r\n.leading dot\r\n..two dots\r\n.\r.not the end\r\nbare\nlf\n.\nstill body\r\n\r\r\n.\r\n'.slice(0, -3);

describe('DotBodyReader', () => {
  it('unstuffs dots and finds the end marker wherever the segments are cut, one or two cuts at every byte boundary', () => {
    const wire = Buffer.from(`${stuffed(TRICKY)}QUIT\r\n`, 'latin1');
    for (let a = 1; a < wire.length; a++) {
      expect(readIn(wire, [a]), `cut at ${a}`).toEqual({ message: TRICKY, after: 'QUIT\r\n', overLimit: false });
      for (let b = a + 1; b < wire.length; b++) expect(readIn(wire, [a, b]), `cuts at ${a}, ${b}`).toEqual({ message: TRICKY, after: 'QUIT\r\n', overLimit: false });
    }
  });

  it('gives back exactly what was stuffed, for any lines and any cuts', () => {
    const line = fc.stringMatching(/^[.\r\nab]{0,8}$/).map((text) => text.replace(/\r\n/g, '\n'));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 4 }), (lines, cutSeeds) => {
        // Lines end in CRLF; bare CR and bare LF inside a line are data.
        const message = lines.map((text) => `${text}\r\n`).join('');
        const wire = Buffer.from(stuffed(message), 'latin1');
        const cuts = [...new Set(cutSeeds.map((seed) => 1 + (seed % Math.max(1, wire.length - 1))))].filter((cut) => cut < wire.length).sort((x, y) => x - y);
        expect(readIn(wire, cuts)).toEqual({ message, after: '', overLimit: false });
      }),
      { seed: 16, numRuns: 2000 },
    );
  });

  it('ends only at CRLF.CRLF: a bare LF before or after the dot is body', () => {
    expect(readIn(Buffer.from('a\n.\nMAIL FROM:<x@y>\n.\r\nb\r\n.\r\n'), [])).toEqual({ message: 'a\n.\nMAIL FROM:<x@y>\n.\r\nb\r\n', after: '', overLimit: false });
    expect(readIn(Buffer.from('a\r\n.\nb\r\n.\r\n'), [])).toEqual({ message: 'a\r\n\nb\r\n', after: '', overLimit: false });
    expect(readIn(Buffer.from('a\r\n.\n'), [])).toBeNull();
  });

  it('reads an empty message, and keeps nothing past the limit while it still finds the end', () => {
    expect(readIn(Buffer.from('.\r\nNOOP\r\n'), [])).toEqual({ message: '', after: 'NOOP\r\n', overLimit: false });
    const big = `${'x'.repeat(100)}\r\n`.repeat(10);
    expect(readIn(Buffer.from(stuffed(big)), [50, 500], 300)).toEqual({ message: '', after: '', overLimit: true });
  });
});
