/**
 * A webhook receiver for tests: a real HTTP server on 127.0.0.1 that records every delivery and
 * checks its signature with its own node:crypto code (not the package's), as an outside
 * receiver would. Every delivery is also held against the OpenAPI document's `webhooks` section
 * (its type, headers and payload schema): a mismatch fails the test at `close()`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deliveryChecker } from '../../support/openapi-recorder.js';

/** One request the receiver got. */
export interface ReceivedDelivery {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: { id: string; type: string; created_at: string; agent_id: string | null; data: Record<string, unknown> };
}

/** What the receiver answers: a status, or `hang` (never answers). */
export type ReceiverAnswer = number | 'hang';

/** A running receiver. */
export interface Receiver {
  url: string;
  received: ReceivedDelivery[];
  /** Answer for the next requests (default 200). */
  answer: ReceiverAnswer;
  /** Deliveries that did not fit the document's `webhooks` section, one line each. */
  violations: string[];
  /** Resolves when the receiver has got `count` requests in all. */
  waitFor(count: number): Promise<ReceivedDelivery[]>;
  /** Answers every request held so far (by `hang`) with `status`. */
  release(status: number): void;
  close(): Promise<void>;
}

/**
 * Checks `Agent-Signature: t=<seconds>,v1=<hex>` against the raw body with HMAC-SHA256 keyed by the
 * whole secret, and the timestamp against `nowSeconds` within 300 s.
 */
export function signatureIsValid(secret: string, rawBody: string, header: string | undefined, nowSeconds: number): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '');
  if (!match) return false;
  const t = Number(match[1]);
  if (Math.abs(nowSeconds - t) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex'));
}

/** Starts a receiver on 127.0.0.1 with a free port. */
export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedDelivery[] = [];
  const waiters: Array<{ count: number; resolve: (all: ReceivedDelivery[]) => void }> = [];
  const hanging: ServerResponse[] = [];
  const violations: string[] = [];
  const receiver: Receiver = {
    url: '',
    received,
    violations,
    answer: 200,
    waitFor(count) {
      if (received.length >= count) return Promise.resolve(received);
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    release(status) {
      for (const response of hanging.splice(0)) {
        response.statusCode = status;
        response.end('ok');
      }
    },
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (violations.length > 0) throw new Error(`webhook deliveries that do not fit the OpenAPI document:\n${violations.join('\n')}`);
    },
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const body = JSON.parse(rawBody) as ReceivedDelivery['body'];
      received.push({ path: request.url ?? '/', headers: request.headers, rawBody, body });
      for (const problem of deliveryChecker.checkDelivery(request.headers, body)) violations.push(`${body.type} ${body.id}: ${problem}`);
      for (const waiter of [...waiters]) {
        if (received.length >= waiter.count) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(received);
        }
      }
      if (receiver.answer === 'hang') {
        hanging.push(response);
        return;
      }
      response.statusCode = receiver.answer;
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}
