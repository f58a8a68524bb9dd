import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { spf } from 'mailauth/lib/spf/index.js';
import type { DnsResolver } from '../../../../src/providers/mail/auth/dns-resolver.js';
import { checkSpf, validSenderDomain } from '../../../../src/providers/mail/auth/spf-check.js';

const joi = createRequire(createRequire(import.meta.url).resolve('mailauth/lib/spf/index.js'))('joi') as {
  string(): { domain(options: object): { validate(value: string): { error?: unknown } } };
};
const joiDomain = joi.string().domain({ allowUnicode: false, tlds: false });

/** Names of the generated zone. */
const NAMES = ['d0.example.test', 'd1.example.test', 'd2.example.test', 'mx.example.test', 'nx.example.test', 'slow.example.test'];
/** Terms an SPF record of the zone may hold: every mechanism, limits, macros, errors. */
const TERMS = [
  'ip4:127.0.0.1',
  'ip4:10.0.0.0/8',
  '-ip4:192.0.2.7/32',
  'ip6:::1',
  'ip6:2001:db8::/32',
  'ip4:bad',
  'ip4:127.0.0.1/33',
  '-all',
  '~all',
  '?all',
  '+all',
  'a',
  'a/24',
  'a:d1.example.test',
  'a:nx.example.test',
  'a:slow.example.test',
  'mx',
  'mx:d2.example.test',
  'include:d1.example.test',
  'include:d2.example.test',
  'include:nx.example.test',
  'include:slow.example.test',
  'redirect=d1.example.test',
  'redirect=nx.example.test',
  'exists:%{i}.d1.example.test',
  'exists:%{l}.d2.example.test',
  'ptr',
  'ptr:example.test',
  'exp=d2.example.test',
  'foo=bar',
  'unknown:x',
  'include:',
];

type Answer = readonly unknown[] | { error: string };
type Zone = Map<string, Answer>;

const record = fc.array(fc.constantFrom(...TERMS), { maxLength: 6 }).map((terms) => ['v=spf1', ...terms].join(' '));
const txt = fc.oneof(
  { weight: 6, arbitrary: record.map((value) => [[value]]) },
  { weight: 1, arbitrary: fc.tuple(record, record).map(([a, b]) => [[a], [b]]) },
  { weight: 1, arbitrary: fc.constant([['not spf'], ['v=spf10 -all']]) },
  { weight: 1, arbitrary: fc.constant([['v=spf1 ', 'ip4:127.0.0.1 -all']]) },
);
const zone: fc.Arbitrary<Zone> = fc
  .record({
    txt: fc.tuple(...NAMES.slice(0, 3).map(() => fc.option(txt, { nil: undefined }))),
    a: fc.tuple(...NAMES.map(() => fc.option(fc.subarray(['127.0.0.1', '192.0.2.7', '10.9.9.9'], { minLength: 1 }), { nil: undefined }))),
    aaaa: fc.option(fc.constant(['::1']), { nil: undefined }),
    ptr: fc.option(fc.subarray(['d0.example.test', 'mx.example.test', 'other.test']), { nil: undefined }),
  })
  .map(({ txt: records, a, aaaa, ptr }) => {
    const map: Zone = new Map();
    records.forEach((value, index) => value && map.set(`TXT ${NAMES[index]}`, value));
    a.forEach((value, index) => value && map.set(`A ${NAMES[index]}`, value));
    if (aaaa) map.set('AAAA d0.example.test', aaaa);
    if (ptr) {
      map.set('PTR 1.0.0.127.in-addr.arpa', ptr);
      map.set('PTR 1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.ip6.arpa', ptr);
    }
    map.set('MX d0.example.test', [{ exchange: 'mx.example.test', priority: 10 }]);
    map.set('MX d2.example.test', [
      { exchange: 'nx.example.test', priority: 5 },
      { exchange: 'mx.example.test', priority: 20 },
    ]);
    map.set('A 127.0.0.1.d1.example.test', ['127.0.0.2']);
    for (const type of ['TXT', 'A', 'AAAA', 'MX']) map.set(`${type} slow.example.test`, { error: 'ETIMEOUT' });
    map.set('TXT d2.example.test', map.get('TXT d2.example.test') ?? { error: 'ESERVFAIL' });
    return map;
  });

/** A resolver answering from `zone` as Node's does: records, or an error with the code (ENOTFOUND when absent). */
function resolverOf(zone: Zone): DnsResolver {
  return async (name, type) => {
    const answer = zone.get(`${type} ${name.toLowerCase()}`);
    if (answer === undefined) throw Object.assign(new Error(`no ${type} for ${name}`), { code: NAMES.includes(name) ? 'ENODATA' : 'ENOTFOUND' });
    if ('error' in answer) throw Object.assign(new Error(`${answer.error} for ${name}`), { code: answer.error });
    return answer.map((entry) => (Array.isArray(entry) ? [...entry] : typeof entry === 'object' ? { ...entry } : entry));
  };
}

const facts = fc.record({
  ip: fc.constantFrom('127.0.0.1', '192.0.2.7', '10.1.2.3', '::1', '::ffff:127.0.0.1', '2001:db8::5', 'not-an-ip', ''),
  sender: fc.constantFrom(
    'u@d0.example.test',
    'U@D0.EXAMPLE.TEST',
    'u@d1.example.test',
    'u@d2.example.test',
    'u@nx.example.test',
    'u@slow.example.test',
    '',
    'd0.example.test',
    '@d0.example.test',
    '"a@b"@d0.example.test',
    'u@-bad-.test',
    'u@d0.example.test.',
    'u@exämple.test',
    'u@localhost',
    'u@xn--exmple-cua.test',
    'u@123.456',
  ),
  helo: fc.constantFrom('d0.example.test', 'localhost', '[127.0.0.1]', 'd1.example.test'),
});

describe('checkSpf (mailauth spfVerify without the headers spf() writes)', () => {
  it("gives mailauth spf()'s result, domain and identities for generated records, senders and addresses", async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(zone, facts, async (zoneMap, { ip, sender, helo }) => {
        const resolver = resolverOf(zoneMap);
        const ours = await checkSpf({ ip, helo, sender, mta: 'agents.test' }, resolver);
        const theirs = await spf({ ip, helo, mta: 'agents.test', resolver: resolver as never, ...(sender ? { sender } : {}) });
        expect(ours).toEqual({ result: theirs.status.result, domain: theirs.domain, smtp: theirs.status.smtp });
        seen.add(ours.result);
      }),
      { numRuns: 1500 },
    );
    // The generator reaches every result, so the comparison covers each way to it.
    expect([...seen].sort()).toEqual(['fail', 'neutral', 'none', 'pass', 'permerror', 'softfail', 'temperror']);
  });

  it('reads pass, fail, none, permerror and temperror where they are due', async () => {
    const zoneMap: Zone = new Map([
      ['TXT d0.example.test', [['v=spf1 ip4:127.0.0.1 -all']]],
      ['TXT d1.example.test', [['v=spf1 include:nx.example.test include:nx2.example.test include:nx3.example.test -all']]],
      ['TXT slow.example.test', { error: 'ETIMEOUT' }],
    ]);
    const check = (sender: string, ip = '127.0.0.1') => checkSpf({ ip, helo: 'h.test', sender, mta: 'agents.test' }, resolverOf(zoneMap));
    expect((await check('u@d0.example.test')).result).toBe('pass');
    expect((await check('u@d0.example.test', '192.0.2.1')).result).toBe('fail');
    expect((await check('u@quiet.example.test')).result).toBe('none');
    expect((await check('u@-bad-.test')).result).toBe('none');
    expect((await check('u@d1.example.test')).result).toBe('permerror');
    expect((await check('u@slow.example.test')).result).toBe('temperror');
    expect((await check('u@d0.example.test', 'nonsense')).result).toBe('temperror');
  });

  it("accepts a sender domain exactly when joi's domain rule, which spf() applies, does", () => {
    const label = fc.stringMatching(/^[a-z0-9A-Z_é-]{0,8}$/);
    const name = fc.oneof(
      fc.array(label, { minLength: 1, maxLength: 5 }).map((labels) => labels.join('.')),
      fc.array(fc.constantFrom('xn--', 'a', '-', '0', '.', 'x', 'z9'), { maxLength: 12 }).map((parts) => parts.join('')),
      fc.constantFrom(`${'a'.repeat(63)}.test`, `${'a'.repeat(64)}.test`, `${'a.'.repeat(127)}test`, 'xn--exmple-cua.test', 'xn--a.test', '1.2.3.4', 'a.b1', 'a.1b', 'a..b'),
    );
    fc.assert(
      fc.property(name, (domain) => {
        const lower = domain.toLowerCase();
        expect(validSenderDomain(lower)).toBe(!joiDomain.validate(lower).error);
      }),
      { numRuns: 5000 },
    );
  });
});
