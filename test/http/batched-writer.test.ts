import type { ServerResponse } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { batchedNodeWriter } from '../../src/http/answers.js';
import type { ApiAnswer } from '../../src/http/api-edge.js';

/** A response that records what was written on it. */
function fakeResponse(log: string[], name: string, failing = false) {
  const response = {
    destroyed: false,
    writeHead(status: number) {
      if (failing) throw new TypeError('invalid header');
      log.push(`${name} ${status}`);
      return response;
    },
    end(body?: string) {
      log.push(`${name} end ${body ?? ''}`);
      return response;
    },
    destroy() {
      response.destroyed = true;
      log.push(`${name} destroyed`);
      return response;
    },
  };
  return response;
}

const answer = (body: string): ApiAnswer => ({ status: 201, headers: { 'content-type': 'application/json' }, body });
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('batchedNodeWriter', () => {
  it('writes the first answer of a turn at once and the others of that turn together at its end, in order', async () => {
    const write = batchedNodeWriter();
    const log: string[] = [];
    write(fakeResponse(log, 'a') as unknown as ServerResponse, answer('1'), false);
    expect(log).toEqual(['a 201', 'a end 1']);
    write(fakeResponse(log, 'b') as unknown as ServerResponse, answer('2'), false);
    write(fakeResponse(log, 'c') as unknown as ServerResponse, answer('3'), true);
    expect(log).toHaveLength(2);
    await nextTurn();
    expect(log).toEqual(['a 201', 'a end 1', 'b 201', 'b end 2', 'c 201', 'c end ']);
    // A new turn writes its first answer at once again.
    write(fakeResponse(log, 'd') as unknown as ServerResponse, answer('4'), false);
    expect(log.slice(-2)).toEqual(['d 201', 'd end 4']);
  });

  it('cuts the connection of an answer that cannot be written and still writes the others', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const write = batchedNodeWriter();
      const log: string[] = [];
      write(fakeResponse(log, 'a') as unknown as ServerResponse, answer('1'), false);
      write(fakeResponse(log, 'b', true) as unknown as ServerResponse, answer('2'), false);
      write(fakeResponse(log, 'c') as unknown as ServerResponse, answer('3'), false);
      await nextTurn();
      expect(log).toEqual(['a 201', 'a end 1', 'b destroyed', 'c 201', 'c end 3']);
      expect(String(stderr.mock.calls[0]?.[0])).toContain('internal error writing an answer');
    } finally {
      stderr.mockRestore();
    }
  });
});
