import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got. */
export interface ReceivedDelivery {
  headers: Record<string, string>;
  body: string;
}

/** A webhook receiver on 127.0.0.1 that answers 200 and keeps what it got. */
export interface WebhookReceiver {
  url: string;
  received: ReceivedDelivery[];
  close(): Promise<void>;
}

/** Starts a receiver on a free port of 127.0.0.1. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers[name] = value;
      received.push({ headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
