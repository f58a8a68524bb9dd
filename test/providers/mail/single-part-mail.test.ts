import fc from 'fast-check';
import { MailParser, simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { MAILPARSER_OPTIONS, mailFields } from '../../../src/providers/mail/mailparser-mail-parser.js';
import { mailparserAddressParser } from '../../../src/providers/mail/plain-addresses.js';
import { plainMail } from '../../../src/providers/mail/plain-mail.js';
import { singlePartMail } from '../../../src/providers/mail/single-part-mail.js';

const headerParser = new MailParser(MAILPARSER_OPTIONS);
const addressParser = mailparserAddressParser();
/**
 * The three paths on the same bytes: the plain one and the single-part one (each undefined when it
 * declines) and simpleParser's.
 */
async function threeWays(raw: string | Buffer) {
  const bytes = typeof raw === 'string' ? Buffer.from(raw) : raw;
  const plain = plainMail(bytes, addressParser);
  const fast = singlePartMail(bytes, headerParser, MAILPARSER_OPTIONS);
  const full = mailFields(await simpleParser(bytes, MAILPARSER_OPTIONS));
  return { plain, fast: fast && mailFields(fast), full };
}

// Pieces of messages: plain and encoded header values, address lists with names and groups,
// folded lines, repeated headers, and the MIME headers that decide which path a message takes.
const word = fc.constantFrom('hello', 'Grüße', '=?UTF-8?Q?=E2=9C=93_ok?=', '=?ISO-8859-1?Q?caf=E9?=', '=?UTF-8?B?w6l0w6k=?=', '"quoted"', '(comment)', 'a;b', 'x,y', '');
const text = fc.array(word, { maxLength: 4 }).map((words) => words.join(' '));
const address = fc.constantFrom(
  'bob@agents.test',
  'Bob <bob@agents.test>',
  '"Doe, Jane" <jane@example.com>',
  '=?UTF-8?Q?J=C3=B6rg?= <jorg@example.com>',
  'team: a@example.com, b@example.com;',
  'undisclosed-recipients:;',
  'ünï@exämple.com',
  '<>',
);
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

// Pieces of plain header blocks (ASCII, no encoded words), which the plain path reads itself: address
// forms addressparser treats specially, repeated, folded and empty headers, headers mailparser keeps
// once or files elsewhere, odd spacing and control characters; now and then something it declines.
const plainText = fc
  .array(fc.constantFrom('hello', 'Re:', '"quoted"', '(comment)', 'a;b', 'x,y', '', '  spaced  ', 'tab\there', '<angle>', 'back\\slash', '=', '?', 'xn--x', '\x0b', 'a\x0cb'), { maxLength: 4 })
  .map((words) => words.join(' '));
const plainAddress = fc.constantFrom(
  'bob@agents.test',
  '<bob@agents.test>',
  'Bob <bob@agents.test>',
  '"Doe, Jane" <jane@example.com>',
  '"Bob \\"B\\" Smith" <bob@example.com>',
  'bob@example.com (Bob)',
  'team: a@example.com, b@example.com;',
  'undisclosed-recipients:;',
  '<>',
  'user@victim.example .allowed.example',
  'x@example.com, , y@example.com',
  'no-at-sign',
  '  Spaced   Name   <s@example.com>  ',
  'a@b@c',
  '"" <e@example.com>',
  'Back\\slash <b@example.com>',
  '"  padded  " <p@example.com>',
);
const plainAddresses = fc.array(plainAddress, { minLength: 1, maxLength: 3 }).map((list) => list.join(', '));
const plainId = fc.constantFrom('<a@example.com>', 'b@example.com', '<c@example.com> <d@example.com>', '', '<e@example.com', 'f@example.com>', '<a@example.com>\t<b@example.com>', '<>');
const plainValue = fc.oneof(
  plainText,
  plainAddresses,
  plainId,
  fc.constantFrom('Thu, 01 Jan 2026 00:00:00 +0000', 'not a date', '1 (Highest)', 'high', '<list.example.com>', '<mailto:l@example.com>', 'v=1; a=rsa-sha256; d=example.com (c)'),
);
const plainName = fc.constantFrom(
  'Subject',
  'subject',
  'SUBJECT',
  'Subject ',
  'X-Custom',
  'x-custom',
  'X Spaced',
  'Reply-To',
  'Sender',
  'Delivered-To',
  'Return-Path',
  'Disposition-Notification-To',
  'References',
  'In-Reply-To',
  'Message-ID',
  'Date',
  'Comments',
  'List-Id',
  'List-Unsubscribe',
  'X-Priority',
  'Importance',
  'X-MSMail-Priority',
  'MIME-Version',
  'Precedence',
  'Errors-To',
  'DKIM-Signature',
  'Cc',
  'Bcc',
  'To',
  'From',
  'Received',
);
// Each is one thing the plain path leaves to the others.
const declinedHeader = fc.constantFrom<[string, string]>(
  ['Subject', '=?UTF-8?Q?=E2=9C=93?='],
  ['Subject', 'Grüße'],
  ['To', 'a@xn--mnchen-3ya.example'],
  ['Priority', 'urgent'],
  ['List', 'x'],
  ['Content-Language', 'en'],
  ['X-Bare', 'a\rb'],
  ['Content-Type', 'text/plain; format=flowed'],
  ['Content-Type', 'multipart/mixed; boundary=b'],
  ['Content-Type', 'text/plain; charset=iso-8859-1'],
  ['Content-Transfer-Encoding', 'base64'],
  ['Content-Disposition', 'attachment; filename=a.txt'],
);
const plainMessage = fc
  .record({
    preamble: fc.oneof({ weight: 30, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('From load@example.com Thu Jan  1 00:00:00 2026', 'POST /mail HTTP/1.1') }),
    from: fc.option(plainAddresses, { nil: undefined }),
    to: fc.option(plainAddresses, { nil: undefined }),
    messageId: fc.option(plainId, { nil: undefined }),
    subject: fc.option(plainText, { nil: undefined }),
    extra: fc.array(fc.tuple(plainName, plainValue, fc.constantFrom('', ' ', '\t', ' \t ')), { maxLength: 6 }),
    declined: fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: declinedHeader }),
    contentType: fc.constantFrom(undefined, 'text/plain', 'text/plain; charset=utf-8', 'TEXT/HTML; charset="US-ASCII"', 'text/plain;charset=UTF-8', 'text/html', 'text/html ;  charset=us-ascii'),
    encoding: fc.constantFrom(undefined, '7bit', '8BIT', 'binary'),
    disposition: fc.constantFrom(undefined, 'inline', 'INLINE'),
    body: fc.array(bodyLine, { maxLength: 6 }),
    lineBreak: fc.constantFrom('\r\n', '\n'),
    finalBreak: fc.boolean(),
  })
  .map((m) => {
    const lines: string[] = m.preamble === undefined ? [] : [m.preamble];
    if (m.from !== undefined) lines.push(`From: ${m.from}`);
    if (m.to !== undefined) lines.push(`To: ${m.to}`);
    if (m.messageId !== undefined) lines.push(`Message-ID: ${m.messageId}`);
    if (m.subject !== undefined) lines.push(`Subject: ${m.subject}`);
    // A fold, when asked, continues the value on a line indented by the given whitespace.
    for (const [name, value, fold] of m.extra) lines.push(fold ? `${name}: ${value}${m.lineBreak}${fold}${value}` : `${name}:${value === '' ? '' : ' '}${value}`);
    if (m.declined !== undefined) lines.push(`${m.declined[0]}: ${m.declined[1]}`);
    if (m.contentType !== undefined) lines.push(`Content-Type: ${m.contentType}`);
    if (m.encoding !== undefined) lines.push(`Content-Transfer-Encoding: ${m.encoding}`);
    if (m.disposition !== undefined) lines.push(`Content-Disposition: ${m.disposition}`);
    return lines.join(m.lineBreak) + m.lineBreak + m.lineBreak + m.body.join(m.lineBreak) + (m.finalBreak ? m.lineBreak : '');
  });

// Header values strung together from the characters address and header parsing turn on (specials,
// quotes, comments, control characters, folds), under the names mailparser treats differently.
const specialsValue = fc.array(fc.constantFrom(...'aZ09 \t"<>()@,;:\\.[]=?-_!\x0b\x0c\x7f'.split(''), 'xn--', '\r\n ', '\n\t', 'a@b.c'), { maxLength: 14 }).map((chars) => chars.join(''));
const specialsMessage = fc
  .record({
    headers: fc.array(
      fc.tuple(
        fc.constantFrom('From', 'To', 'Cc', 'Bcc', 'Subject', 'Message-ID', 'In-Reply-To', 'References', 'Date', 'Sender', 'Reply-To', 'X-A', 'x-a', 'List-Id', 'X-Priority', 'Received', 'Content-Type'),
        specialsValue,
      ),
      { minLength: 1, maxLength: 6 },
    ),
    lineBreak: fc.constantFrom('\r\n', '\n'),
    body: fc.constantFrom('', 'hi', 'a\r\nb\r\n', '\r\n', 'x\r\r\n'),
  })
  .map(({ headers, lineBreak, body }) => headers.map(([name, value]) => `${name}:${value.replaceAll('\r\n', lineBreak)}`).join(lineBreak) + lineBreak + lineBreak + body);

/** What `smtp-source -l 2048` sends: four headers and 26 numbered lines of X (captured from Postfix 3). */
const smtpSourceMessage = fc.integer({ min: 0, max: 9999 }).map((n) => {
  const body = Array.from({ length: 26 }, (_, line) => `${(line + 1) % 10}${'X'.repeat(77)}`).join('\r\n') + `\r\n${'X'.repeat(48)}\r\n`;
  return `From: <load@example.com>\r\nTo: <bob@agents.test>\r\nDate: Fri, 27 Nov 2026 04:23:09 +0000 (UTC)\r\nMessage-Id: <0266.${String(n).padStart(4, '0')}.0000@vm>\r\n\r\n${body}`;
});

// Address values at the edges of the bare-address shortcut (one address, alone or in angle
// brackets): odd local parts and domains, brackets that do not pair, punycode, a second @.
const bareAddress = fc
  .tuple(
    fc.constantFrom('', '<', '>'),
    fc.array(fc.constantFrom('a', 'Z', '0', '.', '+', '-', '_', '..'), { minLength: 1, maxLength: 5 }),
    fc.constantFrom('@', '@@', ''),
    fc.array(fc.constantFrom('b', 'Q', '9', '.', '-', 'xn--', '[1.2.3.4]'), { minLength: 0, maxLength: 4 }),
    fc.constantFrom('', '>', '<', ' '),
  )
  .map(([open, local, at, domain, close]) => `${open}${local.join('')}${at}${domain.join('')}${close}`);
const bareAddressMessage = fc.tuple(bareAddress, bareAddress).map(([from, to]) => `From: ${from}\r\nTo: ${to}\r\nSubject: s\r\n\r\nbody\r\n`);

/** Runs the three paths on every generated message; answers how often each specialised path took one. */
async function compareAll(messages: fc.Arbitrary<string>, numRuns: number, seed: number) {
  const taken = { plain: 0, fast: 0 };
  await fc.assert(
    fc.asyncProperty(messages, async (raw) => {
      const { plain, fast, full } = await threeWays(raw);
      for (const [path, fields] of [
        ['plain', plain],
        ['fast', fast],
      ] as const) {
        if (fields === undefined) continue;
        taken[path]++;
        expect(fields, path).toEqual(full);
      }
    }),
    { numRuns, seed },
  );
  return taken;
}

describe('the plain and single-part paths', () => {
  it('gives the same stored fields as simpleParser for every message it takes, and takes the plain ones', async () => {
    const taken = await compareAll(message, 400, 20261123);
    // Both outcomes occur, so the comparison is not vacuous (these messages are rarely plain).
    expect(taken.fast).toBeGreaterThan(50);
    expect(taken.fast).toBeLessThan(350);
    expect(taken.plain).toBeGreaterThan(0);
  });

  it('reads plain header blocks itself, as simpleParser does, and leaves the others', async () => {
    const taken = await compareAll(plainMessage, 400, 20261127);
    expect(taken.plain).toBeGreaterThan(200);
    expect(taken.plain).toBeLessThan(380);
  });

  it('reads header values made of specials, quotes, comments and folds as simpleParser does', async () => {
    const taken = await compareAll(specialsMessage, 300, 20261127);
    expect(taken.plain).toBeGreaterThan(100);
  });

  it('reads lone addresses, bare or bracketed, as simpleParser does', async () => {
    const taken = await compareAll(bareAddressMessage, 300, 20261127);
    expect(taken.plain).toBeGreaterThan(200);
  });

  it('takes what smtp-source sends on the plain path and reads it as simpleParser does', async () => {
    const taken = await compareAll(smtpSourceMessage, 20, 20261127);
    expect(taken).toEqual({ plain: 20, fast: 20 });
    const { plain } = await threeWays(fc.sample(smtpSourceMessage, { numRuns: 1, seed: 1 })[0]!);
    expect(plain).toMatchObject({ from: 'load@example.com', to: ['bob@agents.test'], subject: '', inReplyTo: null, references: null, html: null });
    expect(plain?.messageId).toMatch(/^<0266\.\d{4}\.0000@vm>$/);
    expect(plain?.headers.map(([name]) => name)).toEqual(['From', 'To', 'Date', 'Message-Id']);
    expect(plain?.text).toMatch(/^1X{77}\n2X{77}\n[\s\S]*\nX{48}$/);
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
    for (const raw of declined) {
      expect(singlePartMail(Buffer.from(raw, 'latin1'), headerParser, MAILPARSER_OPTIONS), raw).toBeUndefined();
      expect(plainMail(Buffer.from(raw, 'latin1'), addressParser), raw).toBeUndefined();
    }
  });

  it('leaves to mailparser header blocks it does not read the same way: encoded words, 8-bit bytes, preambles, Priority, punycode domains, other MIME headers', () => {
    const declined = [
      'Subject: =?UTF-8?Q?=E2=9C=93?=\r\n\r\nhi\r\n',
      'Subject: Gr\xc3\xbc\xc3\x9fe\r\n\r\nhi\r\n',
      'From load@example.com Thu Jan  1 00:00:00 2026\r\nSubject: mbox\r\n\r\nhi\r\n',
      'Priority: urgent\r\n\r\nhi\r\n',
      'To: a@xn--mnchen-3ya.example\r\n\r\nhi\r\n',
      'Content-Language: en\r\n\r\nhi\r\n',
      'Content-Type: text/plain; charset=utf-8 (comment)\r\n\r\nhi\r\n',
      'Content-Type: text/plain\r\nContent-Type: text/html\r\n\r\nhi\r\n',
      'X-Bare: a\rb\r\n\r\nhi\r\n',
      'No colon here\r\n\r\nhi\r\n',
    ];
    for (const raw of declined) expect(plainMail(Buffer.from(raw, 'latin1'), addressParser), raw).toBeUndefined();
  });
});
