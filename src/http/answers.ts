import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ApiAnswer } from './api-edge.js';

/** An {@link ApiAnswer} as a WHATWG `Response` (`runtime.fetch`); no body for HEAD. */
export function toWebResponse(answer: ApiAnswer, head: boolean): Response {
  const { status, headers, body } = answer;
  if (body === null || head) return new Response(null, { status, headers });
  if (typeof body === 'string') return new Response(body, { status, headers });
  return new Response(ReadableStream.from(body.open()), { status, headers });
}

/**
 * Writes an {@link ApiAnswer} on a Node response: JSON in one `end` (Node adds Content-Length),
 * files streamed with backpressure. A file that fails mid-stream cuts the connection, so the
 * client sees a truncated body rather than a complete-looking one.
 */
export function writeNodeAnswer(response: ServerResponse, answer: ApiAnswer, head: boolean): void {
  const { status, headers, body } = answer;
  response.writeHead(status, headers);
  if (body === null || head) {
    response.end();
    return;
  }
  if (typeof body === 'string') {
    response.end(body);
    return;
  }
  pipeline(Readable.from(body.open()), response).catch(() => response.destroy());
}

/**
 * A writer of API answers that writes the first answer of an event loop turn at once and holds the
 * others ready in the same turn until its end (`setImmediate`, once every socket the turn found
 * readable has been read and its request run), then writes them all, one after another. Written
 * as each was ready, the socket writes of a saturated server were interleaved with the work of the
 * next requests; grouped, the same writes cost far less CPU under gVisor (where each is a trip
 * into the sandbox's kernel): a book-transfer POST at 32 connections cost 66-69 instead of 92-118
 * µs, about 18 answers to a group. A lone request's answer never waits.
 */
export function batchedNodeWriter(): (response: ServerResponse, answer: ApiAnswer, head: boolean) => void {
  let due: Array<{ response: ServerResponse; answer: ApiAnswer; head: boolean }> = [];
  /** Whether this turn wrote an answer already (its end is then scheduled). */
  let wrote = false;
  const turnEnds = () => {
    wrote = false;
    const batch = due;
    due = [];
    for (const { response, answer, head } of batch) writeOrDestroy(response, answer, head);
  };
  return (response, answer, head) => {
    if (wrote) {
      due.push({ response, answer, head });
      return;
    }
    wrote = true;
    setImmediate(turnEnds);
    writeOrDestroy(response, answer, head);
  };
}

/** {@link writeNodeAnswer}; an answer that cannot be written (a header Node refuses) cuts its connection and holds back no other. */
function writeOrDestroy(response: ServerResponse, answer: ApiAnswer, head: boolean): void {
  try {
    writeNodeAnswer(response, answer, head);
  } catch (error) {
    process.stderr.write(`internal error writing an answer: ${(error as Error)?.stack ?? String(error)}\n`);
    response.destroy();
  }
}

/**
 * Writes a WHATWG `Response` (hosted pages, area edges) on a Node response, `Set-Cookie` kept as
 * separate headers, the body streamed with backpressure.
 */
export async function writeWebResponse(response: ServerResponse, answer: Response, head: boolean): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  answer.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  response.writeHead(answer.status, headers);
  if (!answer.body || head) {
    await answer.body?.cancel().catch(() => {});
    response.end();
    return;
  }
  await pipeline(Readable.fromWeb(answer.body as import('node:stream/web').ReadableStream<Uint8Array>), response).catch(() => response.destroy());
}
