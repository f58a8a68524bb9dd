import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import { RequestMetrics } from '../../../src/http/plain-metrics.js';
import { lineStart, requestLine } from '../../../src/http/request-line.js';
import { createRequestLogger } from '../../../src/http/request-log.js';
import type { CompletedRequest } from '../../../src/http/request-telemetry.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'request-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const completed = (fields: Partial<CompletedRequest> = {}): CompletedRequest => ({
  reqId: 'r-1',
  method: 'GET',
  route: '/v1/wallet/balance',
  status: 200,
  ms: 1.25,
  agentId: 'agt_1',
  at: performance.now(),
  ...fields,
});

describe('request lines', () => {
  const start = lineStart(',"req_id":');

  it('are the pino line of their fields, in ASCII, whatever the values hold', () => {
    const cases: Array<Partial<CompletedRequest>> = [
      {},
      { reqId: 'has"quote\\and-backslash', route: null, status: 404, agentId: null, ms: 0 },
      { reqId: 'plain', method: 'DELETE', route: '/v1/files/{file_id}', status: 204, ms: 12.345 },
      { agentId: 'agt_é☃\u2028', ms: 0.001 },
      { ms: 0.5 },
      { ms: 1999.999 },
      { ms: 86_400_000.25 },
    ];
    for (const fields of cases) {
      const request = completed(fields);
      const line = requestLine(request, start(Date.UTC(2026, 10, 27, 10, 0, 0, 123)));
      expect(line.endsWith('}\n')).toBe(true);
      expect(/^[\x20-\x7e]*\n$/.test(line)).toBe(true);
      const parsed = JSON.parse(line) as Record<string, unknown>;
      expect(Object.keys(parsed)).toEqual(['level', 'time', 'req_id', 'method', 'route', 'status', 'ms', 'agent_id', 'msg']);
      expect(parsed).toEqual({
        level: 'info',
        time: '2026-11-27T10:00:00.123Z',
        req_id: request.reqId,
        method: request.method,
        route: request.route,
        status: request.status,
        ms: request.ms,
        agent_id: request.agentId,
        msg: 'request',
      });
    }
  });

  it('keep their own route, method and status when many share a route', () => {
    const statuses = [200, 201, 400, 401, 404, 409, 500];
    for (const method of ['GET', 'POST', 'PUT']) {
      for (const status of statuses) {
        const parsed = JSON.parse(requestLine(completed({ method, status, route: '/v1/shared' }), start())) as Record<string, unknown>;
        expect(parsed).toMatchObject({ method, status, route: '/v1/shared' });
      }
    }
  });
});

describe('the request logger', () => {
  it('writes every line logged before close() to its file, in order, request lines and pino lines alike', async () => {
    const file = path.join(dir, 'all.log');
    const log = createRequestLogger({ dest: file });
    for (let i = 0; i < 1000; i++) {
      log.sink(completed({ reqId: `req-${i}` }));
      if (i === 500) log.logger.info({ token: 'tok-secret', where: 'café' }, 'half way ☃');
    }
    await log.close();
    const lines = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(1001);
    expect(lines[501]).toMatchObject({ msg: 'half way ☃', where: 'café', token: '[redacted]' });
    expect(lines.filter((line) => line.msg === 'request').map((line) => line.req_id)).toEqual(Array.from({ length: 1000 }, (_, i) => `req-${i}`));
  });

  it('ends a stream destination on close() once the last line is in it', async () => {
    let text = '';
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        text += chunk.toString();
        done();
      },
    });
    const log = createRequestLogger({ destination: stream });
    log.sink(completed({ reqId: 'only-one' }));
    expect(text).toBe('');
    await log.close();
    expect(stream.writableFinished).toBe(true);
    expect(JSON.parse(text)).toMatchObject({ req_id: 'only-one', msg: 'request' });
  });
});

describe('request metrics', () => {
  it('count every request, kept or not yet counted, when read', async () => {
    const registry = new Registry();
    const metrics = new RequestMetrics(registry, [0.001, 0.01], { requests: 'requests_total', latency: 'latency_seconds' });
    // More than are kept before counting, so that both counting paths run.
    for (let i = 0; i < 300; i++) metrics.record(completed({ status: i % 3 === 0 ? 404 : 200, ms: i % 2 === 0 ? 0.5 : 5 }));
    metrics.record(completed({ method: 'POST', route: null, status: 404 }));
    const text = await registry.metrics();
    expect(text).toContain('requests_total{method="GET",route="/v1/wallet/balance",status="200"} 200');
    expect(text).toContain('requests_total{method="GET",route="/v1/wallet/balance",status="404"} 100');
    expect(text).toContain('requests_total{method="POST",route="unmatched",status="404"} 1');
    expect(text).toContain('latency_seconds_bucket{method="GET",route="/v1/wallet/balance",le="0.001"} 150');
    expect(text).toContain('latency_seconds_bucket{method="GET",route="/v1/wallet/balance",le="0.01"} 300');
    expect(text).toContain('latency_seconds_count{method="GET",route="/v1/wallet/balance"} 300');
  });
});
