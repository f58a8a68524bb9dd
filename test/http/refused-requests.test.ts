/**
 * Requests refused before routing or before their body is used (issue 28, DECISIONS.md "Requests
 * refused before routing"): what Node's HTTP parser refuses, announced bodies over the limit, JSON
 * nested too deep, a charset other than UTF-8, and a simulated clock moved past year 9999. Each
 * answers the JSON error shape with the status and code of DECISIONS.md.
 */
import { connect as connectTcp } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, serve, type RunningServer, type Runtime, type ServeOptions } from '../../src/index.js';
import { RAW_TRANSPORTS, expectErrorResponse, jsonInit, openRawWorld, type World } from '../support/transports.js';

/** `{"a":{"a":...{"a":1}}}` with `levels` objects. */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe.each(RAW_TRANSPORTS)('refused bodies and clock moves (%s)', (kind) => {
  let world: World | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it('answers a 20 KB URL with 431 headers_too_large', async () => {
    world = await openRawWorld(kind);
    await expectErrorResponse(await world.raw(`/v1/agent?x=${'a'.repeat(20_000)}`), 431, 'headers_too_large');
    // Under the limit the request is routed: the unknown parameter is the route's 400.
    await expectErrorResponse(await world.raw(`/_sim/clock?x=${'a'.repeat(15_000)}`), 400, 'invalid_request', 'x');
  });

  it('answers JSON nested 7,000 levels (and 257) with 400 invalid_request, and looks no further than 256', async () => {
    world = await openRawWorld(kind);
    for (const levels of [7_000, 257]) {
      const body = `{"name":"deep","bio":${nested(levels - 1)}}`;
      const answer = await expectErrorResponse(await world.raw('/_sim/agents', jsonInit('POST', body)), 400, 'invalid_request');
      expect(answer.error.message).toBe('expected JSON nested at most 256 levels deep, got deeper');
    }
    // 256 levels pass the nesting check; the schema then refuses the object where a string belongs.
    const answer = await expectErrorResponse(await world.raw('/_sim/agents', jsonInit('POST', `{"name":"deep","bio":${nested(255)}}`)), 400, 'invalid_request', 'bio');
    expect(answer.error.message).not.toContain('nested');
    await expectErrorResponse(await world.raw('/v1/agent/deep'), 404, 'not_found');
  });

  it('answers a JSON body whose charset is not utf-8 with 415 and takes charset=utf-8 in any spelling', async () => {
    world = await openRawWorld(kind);
    for (const type of ['application/json; charset=utf-16', 'application/json;charset="ISO-8859-1"', 'application/json; charset=utf8']) {
      const answer = await expectErrorResponse(await world.raw('/_sim/agents', { method: 'POST', headers: { 'content-type': type }, body: '{"name":"ann"}' }), 415, 'unsupported_media_type');
      expect(answer.error.message).toContain('charset=utf-8');
    }
    await expectErrorResponse(await world.raw('/v1/agent/ann'), 404, 'not_found');
    for (const [name, type] of [
      ['ann', 'application/json; charset=UTF-8'],
      ['bob', 'application/json;charset="utf-8"'],
    ] as const) {
      const response = await world.raw('/_sim/agents', { method: 'POST', headers: { 'content-type': type }, body: JSON.stringify({ name }) });
      expect(response.status, await response.clone().text()).toBe(201);
    }
  });

  it('stops the simulated clock at 9999-12-31T23:59:59.999Z: moves past it are 400 and the snapshot still restores', async () => {
    world = await openRawWorld(kind);
    const advance = (body: unknown) => world!.raw('/_sim/clock/advance', jsonInit('POST', body));
    await expectErrorResponse(await advance({ to: '+010000-01-01T00:00:00.000Z' }), 400, 'invalid_request', 'to');
    await expectErrorResponse(await advance({ to: '9999-12-31T23:59:59.999-01:00' }), 400, 'invalid_request', 'to');
    const last = await advance({ to: '9999-12-31T23:59:59.000Z' });
    expect(await last.json()).toEqual({ now: '9999-12-31T23:59:59.000Z' });
    await expectErrorResponse(await advance({ seconds: 1 }), 400, 'invalid_request', 'seconds');
    const end = await advance({ seconds: 0.999 });
    expect(await end.json()).toEqual({ now: '9999-12-31T23:59:59.999Z' });
    await expectErrorResponse(await advance({ seconds: 0.001 }), 400, 'invalid_request', 'seconds');
    expect(await (await world.raw('/_sim/clock')).json()).toEqual({ now: '9999-12-31T23:59:59.999Z' });
    await world.newAgent('ann');
    const snapshot = await (await world.raw('/_sim/snapshot')).json();
    expect((await world.raw('/_sim/restore', jsonInit('POST', snapshot))).status).toBe(204);
  });
});

describe('deep JSON in process', () => {
  it('answers runtime.dispatch with a body nested 7,000 levels with 400 invalid_request, not a RangeError', async () => {
    const runtime = await createRuntime();
    try {
      let bio: unknown = 1;
      for (let i = 0; i < 7_000; i++) bio = { a: bio };
      const result = await runtime.dispatch({ routeId: 'sim.createAgent', body: { name: 'deep', bio } });
      expect(result.status).toBe(400);
      expect(result.body).toEqual({ error: { code: 'invalid_request', message: 'expected JSON nested at most 256 levels deep, got deeper' } });
    } finally {
      await runtime.close();
    }
  });
});

/** A raw exchange on a new connection: sends `request`, reads until the server closes (or `waitMs`). */
async function exchange(server: RunningServer, request: string | Buffer, waitMs = 5_000): Promise<{ status: number; headers: Record<string, string>; body: string; closed: boolean }> {
  const socket = connectTcp(server.port, '127.0.0.1');
  const chunks: Buffer[] = [];
  const closed = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), waitMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
    socket.write(request);
  });
  socket.destroy();
  const text = Buffer.concat(chunks).toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  const raw = text.slice(split + 4);
  return { status: Number(statusLine?.split(' ')[1]), headers, body: headers['transfer-encoding'] === 'chunked' ? dechunk(raw) : raw, closed };
}

/** The payload of a chunked body. */
function dechunk(raw: string): string {
  let body = '';
  for (let at = 0; ; ) {
    const end = raw.indexOf('\r\n', at);
    const size = Number.parseInt(raw.slice(at, end), 16);
    if (!size) return body;
    body += raw.slice(end + 2, end + 2 + size);
    at = end + 2 + size + 2;
  }
}

/** Asserts a raw answer is the JSON error of DECISIONS.md with this status and code. */
function expectJsonError(answer: { status: number; headers: Record<string, string>; body: string }, status: number, code: string): void {
  expect(answer.status, answer.body).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(answer.body) as { error: Record<string, unknown> };
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
}

describe('requests Node refuses before routing (a real socket)', () => {
  let runtime: Runtime | undefined;
  let server: RunningServer | undefined;
  const open = async (options: ServeOptions = {}) => {
    runtime = await createRuntime({ maxBodyBytes: 1024 * 1024 });
    server = await serve(runtime, { port: 0, ...options });
    return server;
  };
  afterEach(async () => {
    await server?.close();
    await runtime?.close();
    server = undefined;
    runtime = undefined;
  });

  it('answers a 20 KB URL and 20 KB of headers with 431 headers_too_large', async () => {
    const s = await open();
    expectJsonError(await exchange(s, `GET /v1/agent?x=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`), 431, 'headers_too_large');
    expectJsonError(await exchange(s, `GET /v1/agent HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`), 431, 'headers_too_large');
  });

  it('answers a malformed request line, raw non-ASCII in the path and conflicting lengths with 400 invalid_request', async () => {
    const s = await open();
    expectJsonError(await exchange(s, 'NOT A REQUEST\r\n\r\n'), 400, 'invalid_request');
    expectJsonError(await exchange(s, Buffer.concat([Buffer.from('GET /v1/caf'), Buffer.from([0xc3, 0xa9]), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')])), 400, 'invalid_request');
    expectJsonError(await exchange(s, 'POST /_sim/agents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 14\r\nTransfer-Encoding: chunked\r\n\r\n{"name":"ann"}'), 400, 'invalid_request');
    expectJsonError(await exchange(s, 'POST /_sim/agents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'), 400, 'invalid_request');
  });

  it('answers a malformed request after a complete one on the same keep-alive connection', async () => {
    const s = await open();
    const socket = connectTcp(s.port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('utf8')));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('GET /_sim/clock HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise<void>((resolve) => socket.once('data', () => resolve()));
    socket.write('NOT A REQUEST\r\n\r\n');
    await closed;
    expect(text.startsWith('HTTP/1.1 200 ')).toBe(true);
    const second = text.slice(text.indexOf('HTTP/1.1 400 '));
    expect(second).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(second.slice(second.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: { code: 'invalid_request' } });
  });

  it('answers a client that stalls with 408 request_timeout', async () => {
    const s = await open({ headersTimeoutMs: 200, requestTimeoutMs: 400 });
    const stalledHeaders = await exchange(s, 'GET /v1/agent HTTP/1.1\r\nHost: x\r\n');
    expectJsonError(stalledHeaders, 408, 'request_timeout');
    expect(stalledHeaders.closed).toBe(true);
    const stalledBody = await exchange(s, 'POST /_sim/agents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":');
    expectJsonError(stalledBody, 408, 'request_timeout');
  });

  it('refuses a 10 MB Content-Length on a 1 MiB route with 413 at once, without the body, and closes the connection', async () => {
    const s = await open();
    const answer = await exchange(s, `POST /_sim/agents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${10 * 1024 * 1024}\r\n\r\n{"name":`);
    expectJsonError(answer, 413, 'payload_too_large');
    expect(answer.headers.connection).toBe('close');
    expect(answer.closed).toBe(true);
    // A fetch that sends its (smaller) oversized body reads the same 413.
    const response = await fetch(`${s.url}/_sim/agents`, jsonInit('POST', { name: 'ann', bio: 'x'.repeat(2 * 1024 * 1024) }));
    await expectErrorResponse(response, 413, 'payload_too_large');
    expect((await fetch(`${s.url}/v1/agent/ann`)).status).toBe(404);
  });
});

/** The chunked-encoding frame of `data`. */
const chunk = (data: string | Buffer) => Buffer.concat([Buffer.from(`${Buffer.byteLength(data).toString(16)}\r\n`), Buffer.from(data), Buffer.from('\r\n')]);
const BOUNDARY = 'x-upload-boundary';
/** The start of a multipart body whose file part is `file.bin`; the file's bytes follow it. */
const FILE_PART = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="file.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
/** Request line and headers of an upload to the memory files route. */
const uploadHead = (apiKey: string, length: string) => `POST /v1/memory/files HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\n${length}\r\n\r\n`;
/** The largest upload body of a 1,000-byte file limit: the file and 2 MiB of multipart framing. */
const UPLOAD_BODY_LIMIT = 1000 + 2 * 1024 * 1024;

describe('bodies past their route limit (a real socket): refused at once, before the rest is read', () => {
  let runtime: Runtime | undefined;
  let server: RunningServer | undefined;
  let apiKey = '';
  const open = async (maxUploadBytes?: number) => {
    runtime = await createRuntime({ maxBodyBytes: 1024 * 1024, ...(maxUploadBytes === undefined ? {} : { memory: { maxUploadBytes } }) });
    server = await serve(runtime, { port: 0 });
    apiKey = (await runtime.createAgent({ name: 'ann' })).api_key;
    return server;
  };
  afterEach(async () => {
    await server?.close();
    await runtime?.close();
    server = undefined;
    runtime = undefined;
  });

  /** The agent's stored files (none may be kept by a refused upload). */
  const files = async () => ((await (await fetch(`${server!.url}/v1/memory/files`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as { files: unknown[] }).files;

  it('refuses an upload whose Content-Length is over the route limit with 413 before any file byte is sent', async () => {
    const s = await open(1000);
    // Only the head and the part's headers are sent: the answer cannot wait for the 10 MB.
    const answer = await exchange(s, uploadHead(apiKey, `Content-Length: ${10 * 1024 * 1024}`) + FILE_PART);
    expectJsonError(answer, 413, 'payload_too_large');
    expect(answer.headers.connection).toBe('close');
    expect(answer.closed).toBe(true);
    expect(JSON.parse(answer.body).error.message).toBe(`request body over ${UPLOAD_BODY_LIMIT} bytes (Content-Length: ${10 * 1024 * 1024})`);
    expect(await files()).toEqual([]);
  });

  it('refuses an upload announced past the default 500 MB file limit at once', async () => {
    const s = await open();
    const answer = await exchange(s, uploadHead(apiKey, 'Content-Length: 600000000') + FILE_PART);
    expectJsonError(answer, 413, 'payload_too_large');
    expect(answer.closed).toBe(true);
  });

  it('refuses a chunked upload as soon as it passes the limit, without waiting for its end', async () => {
    const s = await open(1000);
    // 3 MB of file in 64 KiB chunks, and never the last chunk: the body is not complete when answered.
    const parts = [chunk(FILE_PART), ...Array.from({ length: 48 }, () => chunk(Buffer.alloc(64 * 1024, 'a')))];
    const answer = await exchange(s, Buffer.concat([Buffer.from(uploadHead(apiKey, 'Transfer-Encoding: chunked')), ...parts]));
    expectJsonError(answer, 413, 'payload_too_large');
    expect(answer.headers.connection).toBe('close');
    expect(answer.closed).toBe(true);
    expect(await files()).toEqual([]);
  });

  it('refuses a chunked JSON body as soon as it passes the limit, without waiting for its end', async () => {
    const s = await open();
    const answer = await exchange(
      s,
      Buffer.concat([Buffer.from('POST /_sim/agents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n'), chunk('{"name":"ann","bio":"'), chunk('x'.repeat(2 * 1024 * 1024))]),
    );
    expectJsonError(answer, 413, 'payload_too_large');
    expect(JSON.parse(answer.body).error.message).toBe(`request body over ${1024 * 1024} bytes`);
    expect(answer.headers.connection).toBe('close');
    expect(answer.closed).toBe(true);
  });

  it('answers a kept upload as kept when only what follows its file passes the limit, and closes the connection', async () => {
    const s = await open(1000);
    // A complete 500-byte file, then 3 MB after the closing boundary: the file is stored before the excess comes.
    const parts = [chunk(FILE_PART), chunk(Buffer.alloc(500, 'a')), chunk(`\r\n--${BOUNDARY}--\r\n`), ...Array.from({ length: 48 }, () => chunk(Buffer.alloc(64 * 1024, 'b')))];
    const answer = await exchange(s, Buffer.concat([Buffer.from(uploadHead(apiKey, 'Transfer-Encoding: chunked')), ...parts]));
    expect(answer.status, answer.body).toBe(201);
    expect(JSON.parse(answer.body)).toMatchObject({ name: 'file.bin', size: 500 });
    expect(answer.headers.connection).toBe('close');
    expect(answer.closed).toBe(true);
    expect(await files()).toHaveLength(1);
  });

  it('still takes a chunked upload within the limit', async () => {
    const s = await open(1000);
    const body = Buffer.concat([chunk(FILE_PART), chunk(Buffer.alloc(500, 'a')), chunk(`\r\n--${BOUNDARY}--\r\n`), Buffer.from('0\r\n\r\n')]);
    // The client closes after the answer, so the exchange ends with it.
    const answer = await exchange(s, Buffer.concat([Buffer.from(uploadHead(apiKey, 'Transfer-Encoding: chunked\r\nConnection: close')), body]));
    expect(answer.status, answer.body).toBe(201);
    expect(JSON.parse(answer.body)).toMatchObject({ name: 'file.bin', size: 500 });
    expect(await files()).toHaveLength(1);
  });
});

describe('an endless upload body in process (runtime.fetch)', () => {
  it('is cancelled once it passes the route limit and answered 413', async () => {
    const runtime = await createRuntime({ memory: { maxUploadBytes: 1000 } });
    try {
      const { api_key } = await runtime.createAgent({ name: 'ann' });
      let pulled = 0;
      let cancelled = false;
      const block = new Uint8Array(64 * 1024).fill(97);
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(FILE_PART));
        },
        pull(controller) {
          pulled += block.byteLength;
          controller.enqueue(block);
        },
        cancel() {
          cancelled = true;
        },
      });
      const init = { method: 'POST', headers: { authorization: `Bearer ${api_key}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, body, duplex: 'half' } as RequestInit;
      const response = await runtime.fetch(new Request('http://localhost/v1/memory/files', init));
      await expectErrorResponse(response, 413, 'payload_too_large');
      expect(cancelled).toBe(true);
      // Read up to the limit and a little stream buffering past it, never on to the drain's old 1 GiB.
      expect(pulled).toBeLessThan(2 * UPLOAD_BODY_LIMIT);
    } finally {
      await runtime.close();
    }
  });
});
