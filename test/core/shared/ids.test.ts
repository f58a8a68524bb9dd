import { describe, expect, it } from 'vitest';
import { ID_PREFIX, idFromBytes, type IdKind } from '../../../src/core/shared/ids.js';

describe('idFromBytes', () => {
  it('writes the prefix, an underscore and one base62 character per byte (byte % 62)', () => {
    expect(idFromBytes('message', Uint8Array.from([0, 61, 62, 255, 10, 36]))).toBe('msg_0z07Aa');
    expect(idFromBytes('browserSession', Uint8Array.from([1]))).toBe('bs_1');
  });

  it('gives every kind its own prefix', () => {
    const bytes = Uint8Array.from({ length: 24 }, (_, i) => i * 11);
    for (const kind of Object.keys(ID_PREFIX) as IdKind[]) expect(idFromBytes(kind, bytes)).toMatch(new RegExp(`^${ID_PREFIX[kind]}_[0-9A-Za-z]{24}$`));
  });
});
