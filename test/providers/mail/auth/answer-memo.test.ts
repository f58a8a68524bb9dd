import { afterEach, describe, expect, it, vi } from 'vitest';
import { AnswerMemo } from '../../../../src/providers/mail/auth/answer-memo.js';
import { dnsResolver, type DnsResolver } from '../../../../src/providers/mail/auth/dns-resolver.js';
import { MailAuthenticator } from '../../../../src/providers/mail/auth/mail-authenticator.js';
import { startDnsServer, type TestDnsServer } from '../../../support/dns-server.js';
import { plainMessage, senderZone } from './fixtures.js';
import { movablePerformanceClock } from '../../../support/performance-clock.js';

/**
 * A resolver whose cache the test drives: `answers` are what it says, `cached` the questions whose
 * current answer is reused (the token changes when the test replaces an answer).
 */
function drivenResolver(answers: Map<string, unknown>) {
  const tokens = new Map<string, object>();
  const asked: string[] = [];
  const resolver: DnsResolver = async (name, type) => {
    const key = `${type} ${name}`;
    asked.push(key);
    const answer = answers.get(key);
    if (answer instanceof Error) throw answer;
    // As a cache keeps them: records, and that there are none.
    if (!tokens.has(key)) tokens.set(key, {});
    if (answer === undefined) throw Object.assign(new Error(`no ${key}`), { code: 'ENOTFOUND' });
    return answer;
  };
  const reused = (name: string, type: string) => tokens.get(`${type} ${name}`);
  resolver.reused = reused;
  return { resolver, reused, asked, tokens };
}

const timeout = () => Object.assign(new Error('slow'), { code: 'ETIMEOUT' });

describe('AnswerMemo: results of DNS answers reused only while those answers are', () => {
  /** A computation reading two questions and answering what it read. */
  const compute = async (ask: (name: string, type: string) => Promise<unknown>) => {
    const read = async (name: string) => ask(name, 'TXT').then(String, (error: NodeJS.ErrnoException) => error.code);
    return `${await read('a.test')} ${await read('b.test')}`;
  };

  it('gives the kept result while every answer it read (records or "no such name") is still cached, and computes again once one changed', async () => {
    const answers = new Map<string, unknown>([['TXT a.test', 'one']]);
    const { resolver, asked, tokens } = drivenResolver(answers);
    const memo = new AnswerMemo<string>(resolver);
    expect(await memo.get('k', resolver, compute)).toBe('one ENOTFOUND');
    expect(await memo.get('k', resolver, compute)).toBe('one ENOTFOUND');
    expect(asked).toEqual(['TXT a.test', 'TXT b.test']);
    // The cache let the answer of b.test go and the next lookup gets a new one.
    answers.set('TXT b.test', 'two');
    tokens.delete('TXT b.test');
    expect(await memo.get('k', resolver, compute)).toBe('one two');
    // Another key is another computation.
    expect(await memo.get('other', resolver, compute)).toBe('one two');
    expect(asked).toHaveLength(6);
  });

  it('never keeps a result that read a failure, and keeps nothing without a cache to follow', async () => {
    const answers = new Map<string, unknown>([
      ['TXT a.test', timeout()],
      ['TXT b.test', 'two'],
    ]);
    const { resolver, asked, tokens } = drivenResolver(answers);
    // The cache holds an answer to a.test, which came after this message's time was up (its lookup
    // failed with ETIMEOUT all the same).
    tokens.set('TXT a.test', {});
    const memo = new AnswerMemo<string>(resolver);
    expect(await memo.get('k', resolver, compute)).toBe('ETIMEOUT two');
    answers.set('TXT a.test', 'one');
    expect(await memo.get('k', resolver, compute)).toBe('one two');
    expect(asked).toHaveLength(4);

    const uncached: DnsResolver = async (name, type) => answers.get(`${type} ${name}`);
    const plain = new AnswerMemo<string>(uncached);
    expect(await plain.get('k', uncached, compute)).toBe('one two');
    answers.set('TXT a.test', 'three');
    expect(await plain.get('k', uncached, compute)).toBe('three two');
  });

  it('keeps nothing from a computation that returned with a lookup still open', async () => {
    const { resolver, reused } = drivenResolver(new Map([['TXT a.test', 'one']]));
    const asked: string[] = [];
    let answer = () => {};
    // The lookup is answered only after the computation has returned.
    const late: DnsResolver = (name, type) => {
      asked.push(`${type} ${name}`);
      return new Promise((resolve) => (answer = () => resolve(resolver(name, type))));
    };
    late.reused = reused;
    const memo = new AnswerMemo<string>(late);
    const hasty = async (ask: (name: string, type: string) => Promise<unknown>) => {
      void ask('a.test', 'TXT');
      return 'done';
    };
    expect(await memo.get('k', late, hasty)).toBe('done');
    answer();
    await memo.get('k', late, hasty);
    answer();
    expect(asked).toEqual(['TXT a.test', 'TXT a.test']);
  });
});

describe('MailAuthenticator reusing SPF and DMARC results', () => {
  let dns: TestDnsServer | undefined;
  afterEach(() => {
    vi.restoreAllMocks();
    dns?.close();
  });

  it('gives the same verdicts reused as computed, and a changed record counts once the resolver asks again', async () => {
    const clock = movablePerformanceClock();
    dns = await startDnsServer(senderZone());
    const cached = dnsResolver({ server: dns.address, cacheSeconds: 60 });
    // Every question the checks ask, answered from the cache or not.
    const asked: string[] = [];
    const counting: DnsResolver = (name, type) => {
      asked.push(`${type} ${name}`);
      return cached(name, type);
    };
    counting.reused = cached.reused!;
    const authenticator = new MailAuthenticator('agents.test', counting);
    const facts = { ip: '127.0.0.1', helo: 'mail.example.com', sender: 'boss@example.com' };
    const first = await authenticator.check(plainMessage('boss@example.com'), facts);
    expect(first.verdict).toEqual({ spf: 'pass', dkim: [], dmarc: 'pass', from_domain: 'example.com' });
    expect(first.dmarcPolicy).toBe('reject');
    const askedFirst = asked.length;
    expect(askedFirst).toBeGreaterThan(0);
    const again = await authenticator.check(plainMessage('boss@example.com'), facts);
    expect(again).toEqual(first);
    // Given again from the memo: SPF and DMARC were not evaluated again, so nothing was asked.
    expect(asked).toHaveLength(askedFirst);
    // Another sender of the same domain from an address SPF does not allow is evaluated for itself.
    const elsewhere = await authenticator.check(plainMessage('boss@example.com'), { ...facts, ip: '192.0.2.7' });
    expect(elsewhere.verdict).toEqual({ spf: 'fail', dkim: [], dmarc: 'fail', from_domain: 'example.com' });
    // The domain stops allowing 127.0.0.1 and lowers its policy: the cached answers still stand
    // for their 60 s, after which both results change.
    dns.zone['example.com'] = { TXT: ['v=spf1 -all'] };
    dns.zone['_dmarc.example.com'] = { TXT: ['v=DMARC1; p=none'] };
    expect(await authenticator.check(plainMessage('boss@example.com'), facts)).toEqual(first);
    clock.pass(61_000);
    const changed = await authenticator.check(plainMessage('boss@example.com'), facts);
    expect(changed.verdict).toEqual({ spf: 'fail', dkim: [], dmarc: 'fail', from_domain: 'example.com' });
    expect(changed.dmarcPolicy).toBe('none');
    expect(changed.resultsHeader).toMatch(/^agents\.test; dkim=none; spf=fail smtp\.mailfrom=boss@example\.com smtp\.helo=mail\.example\.com; dmarc=fail \(p=NONE\)/);
  });
});
