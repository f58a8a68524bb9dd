import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { describe, expect, it } from 'vitest';
import { unsignedAuthors } from '../../../../src/providers/mail/auth/unsigned-authors.js';
import { plainMessage, signed } from './fixtures.js';

const FROM_FIELDS = [
  ['From: <boss@example.com>'],
  ['From: "Boss, The" <boss@example.com>'],
  ['From: Boss <boss@Example.COM>, second@other.example'],
  ['From: team: a@one.example, b@two.example;'],
  ['From:\r\n  folded@example.com'],
  ['FROM: upper@example.com'],
  ['From: a@one.example', 'From: b@two.example'],
  ['From: not an address'],
  [],
];

describe('unsignedAuthors: the From authors of unsigned mail, as mailauth reads them', () => {
  it.each(FROM_FIELDS)('reads %j as dkimVerify does', async (...fields) => {
    const raw = Buffer.from([...fields, 'To: bob@agents.test', 'Subject: s', '', 'body', ''].join('\r\n'));
    const verified = await dkimVerify(raw);
    expect(unsignedAuthors(raw)).toEqual({ headerFrom: verified.headerFrom, fromFields: verified.fromFields });
  });

  it('reads only the header block, and answers null for a signed message so the verifier runs', async () => {
    const raw = Buffer.from('To: bob@agents.test\r\n\r\nFrom: body@example.com\r\n');
    expect(unsignedAuthors(raw)).toEqual({ headerFrom: [], fromFields: 0 });
    expect(unsignedAuthors(Buffer.from('From: a@b.example\n\nDKIM-Signature: in the body\n'))).toEqual({ headerFrom: ['a@b.example'], fromFields: 1 });
    expect(unsignedAuthors(await signed(plainMessage('boss@example.com')))).toBeNull();
  });
});
