// Server processes on a PostgreSQL world for the multi-process tests, and the HTTP calls they make:
// `serve --database` started as a user would, and a small JSON client that never throws on status.
import { expect, type TestContext } from 'vitest';
import { launch, waitForLine } from './cli-process.js';

/** A running `serve --database` process. */
export interface DatabaseServer {
  url: string;
  kill(): void;
  closed: Promise<unknown>;
}

/** Starts `serve --port 0 --database URL` (plus `extra`) and waits for its `listening on` line. */
export async function startDatabaseServer(t: TestContext, database: string, extra: string[] = []): Promise<DatabaseServer> {
  const run = launch(t, ['serve', '--port', '0', '--database', database, ...extra]);
  await waitForLine(run, /^listening on .*\n/m, `agent-services serve --database ${extra.join(' ')}`);
  const url = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(run.stdout())![1]!;
  return { url, kill: () => run.child.kill('SIGKILL'), closed: run.closed };
}

/** One JSON call: its status, headers and parsed body (null when empty). */
export async function call(url: string, method: string, path: string, options: { key?: string; body?: unknown; idempotencyKey?: string; headers?: Record<string, string> } = {}) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
      ...(options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {}),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

/** Creates an agent through the control plane (with opening balances if given); its key and id. */
export async function createAgent(url: string, name: string, balances?: Record<string, string>): Promise<{ key: string; id: string }> {
  const created = await call(url, 'POST', '/_sim/agents', { body: { name, ...(balances ? { balances } : {}) } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { key: created.body.api_key, id: created.body.agent_id };
}
