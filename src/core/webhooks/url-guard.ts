import { inject, injectable } from '../shared/di.js';
import { AddressResolver } from '../ports/address-resolver.js';
import { ApiError } from '../shared/api-error.js';
import { isIpLiteral, isLocalhostName, isPrivateAddress } from './private-address.js';

/**
 * Keeps agents' webhooks off the service's own network in live mode: a url whose host is, or
 * resolves to, a loopback, private or link-local address is refused. Checked at registration and
 * again before every attempt (a name can be re-pointed after it was registered).
 */
@injectable()
export class UrlGuard {
  constructor(@inject(AddressResolver) private readonly resolver: AddressResolver) {}

  /**
   * Answers the public address to connect to (pass it as the request's `address`, so the request
   * reaches what was checked).
   * @throws ApiError 400 invalid_request (param `url`) when the url leads to a non-public address or does not resolve
   */
  async check(url: string): Promise<string> {
    const hostname = new URL(url).hostname;
    const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
    if (isLocalhostName(bare)) throw refused(hostname);
    let addresses: string[];
    if (isIpLiteral(bare)) addresses = [bare];
    else {
      try {
        addresses = await this.resolver.resolve(bare);
      } catch {
        throw new ApiError('invalid_request', `url: the host ${hostname} does not resolve`, 'url');
      }
    }
    if (addresses.length === 0 || addresses.some(isPrivateAddress)) throw refused(hostname);
    return addresses[0]!;
  }
}

function refused(hostname: string): ApiError {
  return new ApiError('invalid_request', `url: ${hostname} leads to a loopback, private or link-local address, which live webhooks may not reach`, 'url');
}
