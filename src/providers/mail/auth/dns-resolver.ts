import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

/** How mailauth asks DNS: a name and a record type, answered as Node's `dns.resolve` answers. */
export type DnsResolver = (name: string, type: string) => Promise<unknown>;

/** Where and how long to ask. */
export interface DnsResolverOptions {
  /** `HOST:PORT` (or `[v6]:PORT`, or a bare address for port 53); the system resolver without it. */
  server?: string;
  /** A lookup that takes longer fails with `ETIMEOUT` (default 5000 ms, DECISIONS.md). */
  timeoutMs?: number;
}

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
 */
export function dnsResolver(options: DnsResolverOptions = {}): DnsResolver {
  const timeoutMs = options.timeoutMs ?? DNS_TIMEOUT_MS;
  const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
  if (options.server !== undefined) resolver.setServers([checkDnsServer(options.server)]);
  return (name, type) => {
    let timer: NodeJS.Timeout | undefined;
    // c-ares' own timeout grows between retries to other servers; this bounds the whole lookup.
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error(`DNS lookup of ${name} ${type} took over ${timeoutMs} ms`), { code: 'ETIMEOUT' })), timeoutMs);
    });
    return Promise.race([resolver.resolve(name, type), limit]).finally(() => clearTimeout(timer));
  };
}
