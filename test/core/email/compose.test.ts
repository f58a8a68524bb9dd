import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStrictBase64, msgIds, replyReferences, replySubject, rfc5322Date, snippetOf, SNIPPET_LENGTH } from '../../../src/core/email/compose.js';
import { canonicalHeaderName, composedHeaders, headersMap } from '../../../src/core/email/headers.js';

describe('isStrictBase64', () => {
  it('accepts what Buffer encodes, for any bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => isStrictBase64(Buffer.from(bytes).toString('base64'))));
  });

  it.each([
    ['a character outside the alphabet', 'ab$d'],
    ['white space', 'YWJj ZA=='],
    ['a line break', 'YWJj\nZA=='],
    ['URL-safe characters', 'ab-_'],
    ['missing padding', 'YWJjZA'],
    ['padding in the middle', 'YW==YWJj'],
    ['three padding characters', 'Y==='],
    ['a length that is not a multiple of 4', 'YWJjZ'],
  ])('refuses %s', (_what, text) => {
    expect(isStrictBase64(text)).toBe(false);
  });

  it('accepts the empty string (an empty attachment)', () => {
    expect(isStrictBase64('')).toBe(true);
  });
});

describe('replySubject', () => {
  it('prefixes Re: once', () => {
    expect(replySubject('Lunch')).toBe('Re: Lunch');
    expect(replySubject(replySubject('Lunch'))).toBe('Re: Lunch');
  });

  it.each(['Re: Lunch', 'RE: Lunch', 're:Lunch', 'Re : Lunch'])('keeps %s as it is', (subject) => {
    expect(replySubject(subject)).toBe(subject);
  });

  it('prefixes an empty subject and one that merely starts with "Re"', () => {
    expect(replySubject('')).toBe('Re: ');
    expect(replySubject('Regarding lunch')).toBe('Re: Regarding lunch');
  });
});

describe('threading headers', () => {
  it('References of a reply are the parent References followed by the parent Message-ID', () => {
    expect(replyReferences({ messageId: '<c@x>', references: '<a@x> <b@x>', inReplyTo: '<b@x>' })).toBe('<a@x> <b@x> <c@x>');
  });

  it('falls back to the parent In-Reply-To when it has no References', () => {
    expect(replyReferences({ messageId: '<c@x>', inReplyTo: '<b@x>' })).toBe('<b@x> <c@x>');
    expect(replyReferences({ messageId: '<c@x>' })).toBe('<c@x>');
  });

  it('finds msg-id tokens in a header value', () => {
    expect(msgIds(' <a@x>\r\n <b@y> junk <c@z>')).toEqual(['<a@x>', '<b@y>', '<c@z>']);
    expect(msgIds(null)).toEqual([]);
  });
});

describe('rfc5322Date', () => {
  it('writes an RFC 5322 date in UTC', () => {
    expect(rfc5322Date(Date.parse('2026-01-01T00:00:00Z'))).toBe('Thu, 01 Jan 2026 00:00:00 +0000');
    expect(rfc5322Date(Date.parse('2026-07-09T13:05:09.999Z'))).toBe('Thu, 09 Jul 2026 13:05:09 +0000');
  });

  it('round-trips through Date.parse to the second', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 4_102_444_800_000 }), (ms) => Date.parse(rfc5322Date(ms)) === Math.floor(ms / 1000) * 1000));
  });
});

describe('snippetOf', () => {
  it('collapses white space of the text', () => {
    expect(snippetOf('  Hello\n\n  world\t!  ', null)).toBe('Hello world !');
  });

  it('uses the visible text of the HTML when there is no text', () => {
    expect(snippetOf(null, '<html><head><style>p{}</style></head><body><p>Hi &amp; bye</p><script>x()</script></body></html>')).toBe('Hi & bye');
  });

  it(`keeps at most ${SNIPPET_LENGTH} characters, counted as code points`, () => {
    const snippet = snippetOf('🦊'.repeat(500), null);
    expect([...snippet]).toHaveLength(SNIPPET_LENGTH);
    expect(snippet).toBe('🦊'.repeat(SNIPPET_LENGTH));
  });

  it('cuts where Array.from would, whatever the mix of pairs, lone surrogates and white space', () => {
    // Long runs of white space and lengths past both windows (280 and 1,120 characters).
    const unit = fc.constantFrom('a', ' ', '\n', '🦊', '\ud83e', '\udd8a', 'é', '\t\t', ' '.repeat(40), 'word ');
    fc.assert(
      fc.property(fc.array(unit, { minLength: 100, maxLength: 900 }), (units) => {
        const text = units.join('');
        const collapsed = text
          .slice(0, SNIPPET_LENGTH * 8)
          .replace(/\s+/g, ' ')
          .trim();
        const expected =
          collapsed.length <= SNIPPET_LENGTH
            ? collapsed
            : Array.from(collapsed.slice(0, SNIPPET_LENGTH * 2))
                .slice(0, SNIPPET_LENGTH)
                .join('');
        expect(snippetOf(text, null)).toBe(expected);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('headers map', () => {
  it('writes well-known names in canonical case and joins repeated headers by a line break', () => {
    expect(canonicalHeaderName('message-id')).toBe('Message-ID');
    expect(canonicalHeaderName('X-Custom')).toBe('X-Custom');
    expect(
      headersMap([
        ['MESSAGE-ID', '<a@x>'],
        ['Received', 'one'],
        ['received', 'two\r\n  folded'],
      ]),
    ).toEqual({
      'Message-ID': '<a@x>',
      Received: 'one\ntwo folded',
    });
  });

  it('never keeps a Bcc header', () => {
    expect(
      headersMap([
        ['Bcc', 'eve@example.com'],
        ['BCC', 'x@y.z'],
        ['To', 'bob@example.com'],
      ]),
    ).toEqual({ To: 'bob@example.com' });
  });

  it('lets the composed fields win over extra headers of the same name', () => {
    const headers = composedHeaders({ messageId: '<m@x>', date: 'd', from: 'a@x', to: ['b@x'], cc: [], subject: 's' }, { from: 'forged@x', 'X-Trace': '1', 'In-Reply-To': '<p@x>' });
    expect(headers).toMatchObject({ From: 'a@x', 'X-Trace': '1', 'In-Reply-To': '<p@x>', 'Message-ID': '<m@x>' });
    expect(Object.keys(headers).filter((name) => name.toLowerCase() === 'from')).toEqual(['From']);
    expect(headers).not.toHaveProperty('Cc');
  });
});
