import { describe, expect, it } from 'vitest';
import { ancestorsOf, isWithin, nameOf, normalisePath, parentOf } from '../../../src/core/compute/fs-path.js';
import { ApiError } from '../../../src/core/shared/api-error.js';

const refused = (path: string) => {
  try {
    normalisePath(path);
  } catch (error) {
    return error instanceof ApiError && error.code === 'invalid_request' && error.param === 'path';
  }
  return false;
};

describe('normalisePath', () => {
  it('drops . and empty segments and applies ..', () => {
    expect(normalisePath('/a/./b/../c')).toBe('/a/c');
    expect(normalisePath('//a///b/')).toBe('/a/b');
    expect(normalisePath('/')).toBe('/');
    expect(normalisePath('/a/..')).toBe('/');
  });

  it('refuses relative paths, climbing above /, NUL bytes, long names and long paths', () => {
    expect(refused('a/b')).toBe(true);
    expect(refused('')).toBe(true);
    expect(refused('/..')).toBe(true);
    expect(refused('/a/../../b')).toBe(true);
    expect(refused('/a\u0000b')).toBe(true);
    expect(refused('/' + 'x'.repeat(256))).toBe(true);
    expect(refused('/' + 'é'.repeat(128))).toBe(true); // 256 bytes in UTF-8
    expect(refused('/' + 'x'.repeat(255))).toBe(false);
    expect(refused('/' + 'abc/'.repeat(1100))).toBe(true);
  });
});

describe('path helpers', () => {
  it('answer parents, names, ancestors and containment', () => {
    expect(parentOf('/a/b/c')).toBe('/a/b');
    expect(parentOf('/a')).toBe('/');
    expect(nameOf('/a/b')).toBe('b');
    expect(ancestorsOf('/a/b/c')).toEqual(['/a', '/a/b']);
    expect(isWithin('/a/b', '/a')).toBe(true);
    expect(isWithin('/ab', '/a')).toBe(false);
    expect(isWithin('/anything', '/')).toBe(true);
  });
});
