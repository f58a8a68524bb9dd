import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeCursor, encodeCursor } from '../../../src/core/shared/cursor.js';
import { ApiError } from '../../../src/core/shared/api-error.js';

function decodeError(list: string, cursor: string): unknown {
  try {
    decodeCursor(list, cursor);
  } catch (error) {
    return error;
  }
  return undefined;
}

const invalidCursor = { status: 400, code: 'invalid_request', param: 'cursor' };

describe('cursor', () => {
  it('round-trips a position through an opaque, URL-safe string', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), fc.nat(), (list, position) => {
        const cursor = encodeCursor(list, position);
        expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(decodeCursor(list, cursor)).toBe(position);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a cursor of another list with 400 invalid_request on cursor', () => {
    const cursor = encodeCursor('email.messages:agt_1', 42);
    const error = decodeError('email.messages:agt_2', cursor);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject(invalidCursor);
  });

  it('refuses garbage, negative and non-integer positions with 400 invalid_request on cursor', () => {
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const cursor of [
      '',
      'garbage',
      '!!!',
      'eyJ',
      forged({ l: 'list' }),
      forged({ l: 'list', p: -1 }),
      forged({ l: 'list', p: 1.5 }),
      forged({ l: 'list', p: '3' }),
      forged({ l: 'list', p: 2 ** 60 }),
      forged(null),
      forged([1, 2]),
    ]) {
      expect(decodeError('list', cursor), cursor).toMatchObject(invalidCursor);
    }
  });

  it('answers any other string with the same error, never a wrong kind of value', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        // either the one uniform error, or (for the rare string that spells a real cursor) a position
        const error = decodeError('list', text);
        if (error !== undefined) expect(error).toMatchObject(invalidCursor);
        else expect(Number.isSafeInteger(decodeCursor('list', text)) && decodeCursor('list', text) >= 0).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
