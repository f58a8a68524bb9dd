import fc from 'fast-check';
import { MailParser, simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { MAILPARSER_OPTIONS, mailFields } from '../../../src/providers/mail/mailparser-mail-parser.js';
import { singlePartMail } from '../../../src/providers/mail/single-part-mail.js';

const headerParser = new MailParser(MAILPARSER_OPTIONS);
/** Both paths on the same bytes: the single-part one (undefined when it declines) and simpleParser's. */
async function bothWays(raw: string | Buffer) {
  const bytes = typeof raw === 'string' ? Buffer.from(raw) : raw;
  const fast = singlePartMail(bytes, headerParser, MAILPARSER_OPTIONS);
  const full = mailFields(await simpleParser(bytes, MAILPARSER_OPTIONS));
  return { fast: fast && mailFields(fast), full };
}

// Pieces of messages: plain and encoded header values, address lists with names and groups,
// folded lines, repeated headers, and the MIME headers that decide which path a message takes.
const word = fc.constantFrom('hello', 'Grüße', '=?UTF-8?Q?=E2=9C=93_ok?=', '=?ISO-8859-1?Q?caf=E9?=', '=?UTF-8?B?w6l0w6k=?=', '"quoted"', '(comment)', 'a;b', 'x,y', '');
const text = fc.array(word, { maxLength: 4 }).map((words) => words.join(' '));
const address = fc.constantFrom('bob@agents.test', 'Bob <bob@agents.test>', '"Doe, Jane" <jane@example.com>', '=?UTF-8?Q?J=C3=B6rg?= <jorg@example.com>', 'team: a@example.com, b@example.com;', 'undisclosed-recipients:;', 'ünï@exämple.com', '<>');
const addresses = fc.array(address, { minLength: 1, maxLength: 3 }).map((list) => list.join(', '));
const messageId = fc.constantFrom('<a@example.com>', 'b@example.com', '<c@example.com> <d@example.com>', '=?UTF-8?Q?<e@example.com>?=', '');
const contentType = fc.constantFrom(
  undefined,
  'text/plain',
  'text/plain; charset=utf-8',
  'TEXT/PLAIN; charset="US-ASCII"',
  'text/plain; charset=iso-8859-1',
  'text/plain; format=flowed',
  'text/plain; charset=utf-8 (comment)',
  'text/html; charset=utf-8',
  'text/html',
  'application/octet-stream',
  'message/rfc822',
  'multipart/alternative; boundary=b',
);
const encoding = fc.constantFrom(undefined, '7bit', '8bit', 'binary', 'quoted-printable', 'base64', '8BIT (comment)');
const disposition = fc.constantFrom(undefined, 'inline', 'attachment; filename=a.txt', 'inline; filename="b.txt"', 'weird');
const bodyLine = fc.constantFrom('Hello there.', 'Ünïcödé ✓', '<p>hi</p>', '.dot', '', '   ', 'a=3D', '--b', 'x'.repeat(200), '\u00ff\u00fe');
const header = fc.tuple(
  fc.constantFrom('Subject', 'subject', 'X-Custom', 'Reply-To', 'References', 'In-Reply-To', 'Date', 'Comments', 'List-Id', 'X-Priority', 'Cc', 'Bcc'),
  fc.oneof(text, addresses, messageId, fc.constantFrom('Thu, 01 Jan 2026 00:00:00 +0000', 'not a date', '1 (Highest)', '<list.example.com>')),
  fc.boolean(),
);

const message = fc
  .record({
    from: fc.option(addresses, { nil: undefined }),
    to: fc.option(addresses, { nil: undefined }),
    messageId: fc.option(messageId, { nil: undefined }),
    subject: fc.option(text, { nil: undefined }),
    extra: fc.array(header, { maxLength: 5 }),
    contentType,
    encoding,
    disposition,
    body: fc.array(bodyLine, { maxLength: 6 }),
    lineBreak: fc.constantFrom('\r\n', '\n'),
    finalBreak: fc.boolean(),
  })
  .map((m) => {
    const lines: string[] = [];
    if (m.from !== undefined) lines.push(`From: ${m.from}`);
    if (m.to !== undefined) lines.push(`To: ${m.to}`);
    if (m.messageId !== undefined) lines.push(`Message-ID: ${m.messageId}`);
    if (m.subject !== undefined) lines.push(`Subject: ${m.subject}`);
    // A folded header when asked: the value continues on an indented line.
    for (const [name, value, folded] of m.extra) lines.push(folded ? `${name}: ${value}${m.lineBreak} ${value}` : `${name}: ${value}`);
    if (m.contentType !== undefined) lines.push(`Content-Type: ${m.contentType}`);
    if (m.encoding !== undefined) lines.push(`Content-Transfer-Encoding: ${m.encoding}`);
    if (m.disposition !== undefined) lines.push(`Content-Disposition: ${m.disposition}`);
    return lines.join(m.lineBreak) + m.lineBreak + m.lineBreak + m.body.join(m.lineBreak) + (m.finalBreak ? m.lineBreak : '');
  });

describe('the single-part path', () => {
  it('gives the same stored fields as simpleParser for every message it takes, and takes the plain ones', async () => {
    let taken = 0;
    let declined = 0;
    await fc.assert(
      fc.asyncProperty(message, async (raw) => {
        const { fast, full } = await bothWays(raw);
        if (fast === undefined) declined++;
        else {
          taken++;
          expect(fast).toEqual(full);
        }
      }),
      { numRuns: 400, seed: 20261123 },
    );
    // Both outcomes occur, so the comparison above is not vacuous.
    expect(taken).toBeGreaterThan(50);
    expect(declined).toBeGreaterThan(50);
  });

  it("takes what smtp-source sends and reads it as simpleParser does", async () => {
    const raw = `From: <load@example.com>\r\nTo: <bob@agents.test>\r\nDate: Mon, 23 Nov 2026 22:00:00 +0000 (UTC)\r\nMessage-Id: <20261123220000.ABC@localhost>\r\n\r\n${'La de da de da 1.\r\n'.repeat(100)}`;
    const { fast, full } = await bothWays(raw);
    expect(fast).toEqual(full);
    expect(fast).toMatchObject({ from: 'load@example.com', to: ['bob@agents.test'], messageId: '<20261123220000.ABC@localhost>', html: null });
    expect(fast?.text).toBe('La de da de da 1.\n'.repeat(99) + 'La de da de da 1.');
  });

  it('declines multipart mail, attachments, encoded bodies, other charsets and messages without a header block', async () => {
    const declined = [
      'Content-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\n\r\nhi\r\n--x--\r\n',
      'Content-Disposition: attachment; filename=a.txt\r\n\r\nhi\r\n',
      'Content-Transfer-Encoding: base64\r\n\r\naGk=\r\n',
      'Content-Transfer-Encoding: quoted-printable\r\n\r\nh=3Di\r\n',
      'Content-Type: text/plain; charset=iso-8859-1\r\n\r\ncaf\xe9\r\n',
      'Content-Type: text/plain; format=flowed\r\n\r\nhi \r\nthere\r\n',
      'Content-Type: image/png\r\n\r\nxx\r\n',
      '\r\nno headers\r\n',
      'Subject: no body and no empty line\r\n',
    ];
    for (const raw of declined) expect(singlePartMail(Buffer.from(raw, 'latin1'), headerParser, MAILPARSER_OPTIONS), raw).toBeUndefined();
  });
});
