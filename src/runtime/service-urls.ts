import type { ServiceConfig } from '../core/shared/service-config.js';

/**
 * The runtime's {@link ServiceConfig}: configured URLs win; otherwise they follow the HTTP
 * server's listen address once it is known (DECISIONS.md), and a placeholder before that.
 */
export class ServiceUrls implements ServiceConfig {
  private listenUrl = 'http://127.0.0.1';

  constructor(
    readonly serviceDomain: string,
    private readonly configured: { baseUrl?: string | undefined; payUrl?: string | undefined; filesUrl?: string | undefined },
  ) {}

  /** Called by the HTTP server when it starts listening. */
  useListenAddress(url: string): void {
    this.listenUrl = url.replace(/\/$/, '');
  }

  /** The HTTP server's listen URL (a placeholder until it listens); the default advertised URL. */
  get listenAddress(): string {
    return this.listenUrl;
  }

  get baseUrl(): string {
    return (this.configured.baseUrl ?? this.listenUrl).replace(/\/$/, '');
  }

  get payUrl(): string {
    return this.configured.payUrl ?? `${this.baseUrl}/pay`;
  }

  get filesUrl(): string {
    return this.configured.filesUrl ?? `${this.baseUrl}/files`;
  }
}
