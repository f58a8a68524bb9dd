import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkDnsServer, dnsResolver } from '../../../../src/providers/mail/auth/dns-resolver.js';
import { startDnsServer, type TestDnsServer } from '../../../support/dns-server.js';
import { movablePerformanceClock } from '../../../support/performance-clock.js';

describe('the DNS resolver of the sender checks', () => {
  const servers: TestDnsServer[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const server of servers.splice(0)) await server.close();
  });
  const server = async (...args: Parameters<typeof startDnsServer>) => {
    const started = await startDnsServer(...args);
    servers.push(started);
    return started;
  };

  it('asks the given server, and reuses an answer and a "no such name" for the cache time, then asks again', async () => {
    const clock = movablePerformanceClock();
    const dns = await server({ 'example.com': { TXT: ['v=spf1 -all'] } });
    const resolve = dnsResolver({ server: dns.address, cacheSeconds: 60 });
    expect(await resolve('example.com', 'TXT')).toEqual([['v=spf1 -all']]);
    dns.zone['example.com'] = { TXT: ['v=spf1 +all'] };
    expect(await resolve('EXAMPLE.com', 'TXT')).toEqual([['v=spf1 -all']]);
    await expect(resolve('missing.example', 'TXT')).rejects.toMatchObject({ code: expect.stringMatching(/^(ENOTFOUND|ENODATA)$/) });
    await expect(resolve('missing.example', 'TXT')).rejects.toMatchObject({ code: expect.stringMatching(/^(ENOTFOUND|ENODATA)$/) });
    expect(dns.asked).toEqual(['example.com TXT', 'missing.example TXT']);
    clock.pass(61_000);
    expect(await resolve('example.com', 'TXT')).toEqual([['v=spf1 +all']]);
  });

  it('tells which answers the next lookup would reuse: the same token while cached, none in flight, expired, failed or uncached', async () => {
    const clock = movablePerformanceClock();
    const dns = await server({ 'example.com': { TXT: ['v=spf1 -all'] } });
    const resolve = dnsResolver({ server: dns.address, cacheSeconds: 60 });
    const pending = resolve('example.com', 'TXT');
    expect(resolve.reused!('example.com', 'TXT')).toBeUndefined();
    await pending;
    const token = resolve.reused!('example.com', 'TXT');
    expect(token).toBeDefined();
    await resolve('EXAMPLE.COM', 'TXT');
    expect(resolve.reused!('example.com', 'TXT')).toBe(token);
    await expect(resolve('missing.example', 'TXT')).rejects.toMatchObject({ code: expect.stringMatching(/^(ENOTFOUND|ENODATA)$/) });
    expect(resolve.reused!('missing.example', 'TXT')).toBeDefined();
    clock.pass(61_000);
    expect(resolve.reused!('example.com', 'TXT')).toBeUndefined();
    await resolve('example.com', 'TXT');
    expect(resolve.reused!('example.com', 'TXT')).not.toBe(token);

    const silent = await server({}, { silent: true });
    const failing = dnsResolver({ server: silent.address, timeoutMs: 100 });
    await expect(failing('example.com', 'TXT')).rejects.toMatchObject({ code: 'ETIMEOUT' });
    expect(failing.reused!('example.com', 'TXT')).toBeUndefined();
    expect(dnsResolver({ server: dns.address, cacheSeconds: 0 }).reused).toBeUndefined();
  });

  it('shares one query between lookups in flight, and asks every time with cacheSeconds 0', async () => {
    const dns = await server({ 'example.com': { TXT: ['a'] } });
    const cached = dnsResolver({ server: dns.address });
    await Promise.all([cached('example.com', 'TXT'), cached('example.com', 'TXT'), cached('example.com', 'TXT')]);
    expect(dns.asked).toHaveLength(1);
    const uncached = dnsResolver({ server: dns.address, cacheSeconds: 0 });
    await uncached('example.com', 'TXT');
    await uncached('example.com', 'TXT');
    expect(dns.asked).toHaveLength(3);
  });

  it('fails a lookup that takes over the limit with ETIMEOUT, and never reuses the failure', async () => {
    const silent = await server({ 'example.com': { TXT: ['a'] } }, { silent: true });
    const resolve = dnsResolver({ server: silent.address, timeoutMs: 150 });
    await expect(resolve('example.com', 'TXT')).rejects.toMatchObject({ code: 'ETIMEOUT' });
    await expect(resolve('example.com', 'TXT')).rejects.toMatchObject({ code: 'ETIMEOUT' });
    expect(silent.asked.length).toBeGreaterThanOrEqual(2);
  });

  it('takes an IP address with an optional port as the server, nothing else', () => {
    for (const good of ['127.0.0.1', '127.0.0.1:5353', '[::1]:53', '::1']) expect(checkDnsServer(good)).toBe(good);
    for (const bad of ['dns.example.com', '127.0.0.1:0', '127.0.0.1:99999', '[::1', '']) expect(() => checkDnsServer(bad)).toThrow(/--dns-server must be an IP address/);
  });
});
