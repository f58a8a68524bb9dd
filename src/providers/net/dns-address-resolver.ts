import { lookup } from 'node:dns/promises';
import type { AddressResolver } from '../../core/ports/address-resolver.js';

/** {@link AddressResolver} over the operating system's resolver (`getaddrinfo`, as `fetch` uses). */
export class DnsAddressResolver implements AddressResolver {
  /** @throws Error (ENOTFOUND, ...) when the name does not resolve */
  async resolve(hostname: string): Promise<string[]> {
    const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
    const answers = await lookup(host, { all: true, verbatim: true });
    return answers.map((answer) => answer.address);
  }
}
