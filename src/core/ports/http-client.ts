import type { ServiceIdentifier } from '../shared/di.js';

/** One outbound HTTP request (webhook deliveries, TwiML fetches, provider APIs). */
export interface OutboundRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Gives up after this many milliseconds of real time (the caller decides what that means). */
  timeoutMs: number;
  /** Ends the request early (the calling request's deadline, or its caller going away). */
  signal?: AbortSignal;
  /**
   * Connect to this IP address instead of resolving the URL's host again (the `Host` header and the
   * TLS server name stay the URL's): the address a private-address check approved is the one
   * reached, so a name re-pointed in between (DNS rebinding) cannot lead elsewhere.
   */
  address?: string;
}

/** The answer to an {@link OutboundRequest}; headers are lower-cased. */
export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/**
 * Every HTTP request the service makes to the world goes through this port, so a simulation can
 * answer in-process, a test can record, and live mode can refuse private addresses. It rejects
 * with an Error when no answer came (refused, reset, timed out); any HTTP status is an answer.
 */
export interface HttpClient {
  request(request: OutboundRequest): Promise<OutboundResponse>;
}

/** Injection token of {@link HttpClient}. */
export const HttpClient = Symbol.for('agent-services/HttpClient') as ServiceIdentifier<HttpClient>;
