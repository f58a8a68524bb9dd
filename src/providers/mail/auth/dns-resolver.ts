import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';

/**
 * How mailauth asks DNS: a name and a record type, answered as Node's `dns.resolve` answers; with
 * `deadlineMs` (a `performance.now()` time) the caller waits no longer than that.
 */
export interface DnsResolver {
  (name: string, type: string, deadlineMs?: number): Promise<unknown>;
  /**
   * The answer the next lookup of this question would be given from the cache (records, or that
   * there are none), as a token that stays the same object while that answer is reused; undefined
   * when the next lookup would ask the server (nothing cached, expired, in flight, or not a cache).
   */
  reused?(name: string, type: string): object | undefined;
}

/** Where and how long to ask. */
export interface DnsResolverOptions {
  /** `HOST:PORT` (or `[v6]:PORT`, or a bare address for port 53); the system resolver without it. */
  server?: string;
  /** A lookup that takes longer fails with `ETIMEOUT` (default 5000 ms, DECISIONS.md). */
  timeoutMs?: number;
  /** How long an answer (records, or that there are none) is reused, in seconds; 0 asks every time (default 30). */
  cacheSeconds?: number;
}

/** Default time an answer is reused. */
export const DNS_CACHE_SECONDS = 30;
/** Most answers kept; the oldest goes first. */
const CACHE_ENTRIES = 10_000;
/** Failures that are answers (no such name, no such record) and may be reused like records. */
export const NO_RECORD = new Set(['ENOTFOUND', 'ENODATA']);

/** Default limit of one lookup (DECISIONS.md: a lookup over 5 s is temperror). */
export const DNS_TIMEOUT_MS = 5000;

/**
 * Checks a `--dns-server` value: an IP address with an optional port, `127.0.0.1:5353`,
 * `[::1]:5353`, `10.0.0.53`.
 * @throws Error saying what is expected
 */
export function checkDnsServer(server: string): string {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(server);
  const plain = /^([^:]+)(?::(\d{1,5}))?$/.exec(server);
  const host = bracketed?.[1] ?? (plain ? plain[1] : isIP(server) === 6 ? server : undefined);
  const port = bracketed?.[2] ?? plain?.[2];
  if (host === undefined || isIP(host) === 0 || (port !== undefined && (Number(port) < 1 || Number(port) > 65_535))) {
    throw new Error(`--dns-server must be an IP address with an optional port (127.0.0.1:5353, [::1]:53), got "${server}"`);
  }
  return server;
}

/**
 * A DNS resolver for mailauth: Node's resolver (c-ares) on the system's servers or on `server`,
 * with one try per server and a hard limit per lookup. A failure keeps its code (`ENOTFOUND`,
 * `ENODATA` mean no record; `ETIMEOUT`, `ECONNREFUSED`, `ESERVFAIL` become temperror in mailauth),
 * so a slow or broken DNS never holds a message longer than the limit.
 *
 * Answers are reused for `cacheSeconds`, and lookups of the same question in flight share one
 * query: Node turns c-ares' own cache off and cannot tell a TXT record's TTL, and without a cache
 * the three or so lookups of each message cost several times the rest of its check (about 250 µs of
 * CPU against 45 in the bench). 30 s is shorter than almost any published TTL. Failures other
 * than "no such record" are never reused.
 */
export function dnsResolver(options: DnsResolverOptions = {}): DnsResolver {
  const timeoutMs = options.timeoutMs ?? DNS_TIMEOUT_MS;
  const query = uncachedQuery(options.server, timeoutMs);
  const keepMs = (options.cacheSeconds ?? DNS_CACHE_SECONDS) * 1000;
  if (keepMs <= 0) return (name, type, deadlineMs) => bounded(query(name, type), name, type, timeoutMs, deadlineMs);
  const cache = new Map<string, { expiresMs: number; answer: Promise<unknown>; settled: boolean }>();
  const keyOf = (name: string, type: string) => `${type} ${name.toLowerCase()}`;
  const resolve: DnsResolver = (name, type, deadlineMs) => {
    const key = keyOf(name, type);
    const nowMs = performance.now();
    const hit = cache.get(key);
    if (hit && hit.expiresMs > nowMs) return hit.settled ? hit.answer : bounded(hit.answer, name, type, timeoutMs, deadlineMs);
    if (hit) cache.delete(key);
    const entry = { expiresMs: nowMs + keepMs, answer: query(name, type), settled: false };
    entry.answer.then(
      () => (entry.settled = true),
      (error: NodeJS.ErrnoException) => {
        entry.settled = true;
        if (!NO_RECORD.has(error.code ?? '') && cache.get(key) === entry) cache.delete(key);
      },
    );
    cache.set(key, entry);
    if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
    return bounded(entry.answer, name, type, timeoutMs, deadlineMs);
  };
  // A settled entry still in the cache holds records or "no such record": other failures leave it.
  resolve.reused = (name, type) => {
    const entry = cache.get(keyOf(name, type));
    return entry?.settled && entry.expiresMs > performance.now() ? entry : undefined;
  };
  return resolve;
}

/** The error of a lookup that took too long, as c-ares names it. */
function timedOut(name: string, type: string, ms: number): Error {
  return Object.assign(new Error(`DNS lookup of ${name} ${type} took over ${Math.round(ms)} ms`), { code: 'ETIMEOUT' });
}

/** `answer`, or ETIMEOUT once the caller's deadline passes when it comes before the lookup's own limit. */
function bounded(answer: Promise<unknown>, name: string, type: string, timeoutMs: number, deadlineMs: number | undefined): Promise<unknown> {
  if (deadlineMs === undefined) return answer;
  const leftMs = deadlineMs - performance.now();
  if (leftMs >= timeoutMs) return answer;
  // Timers count whole milliseconds: under one left is none left, and a wait is rounded up.
  if (leftMs < 1) return Promise.reject(timedOut(name, type, 0));
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut(name, type, leftMs)), Math.ceil(leftMs));
  });
  return Promise.race([answer, limit]).finally(() => clearTimeout(timer));
}

/** Questions to the server, each failing with ETIMEOUT after `timeoutMs`. */
function uncachedQuery(server: string | undefined, timeoutMs: number): (name: string, type: string) => Promise<unknown> {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
  if (server !== undefined) resolver.setServers([checkDnsServer(server)]);
  return (name, type) => {
    let timer: NodeJS.Timeout | undefined;
    // c-ares' own timeout grows between retries to other servers; this bounds the whole lookup.
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(timedOut(name, type, timeoutMs)), timeoutMs);
    });
    return Promise.race([resolver.resolve(name, type), limit]).finally(() => clearTimeout(timer));
  };
}
