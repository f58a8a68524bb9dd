import { describe, expect, it } from 'vitest';
import { documentKindOf, extensionOf, servedContentType } from '../../../src/core/memory/document-kinds.js';
import { memoryConfig } from '../../../src/core/memory/memory-config.js';
import { decodeVector, encodeVector, normalize, scoreOf } from '../../../src/core/memory/vectors.js';

describe('vectors', () => {
  it('round-trips a vector through its base64 form bit for bit', () => {
    const vector = Float32Array.of(0.1, -2.5, 3e-8, 1, -0);
    const text = encodeVector(vector);
    expect(text).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(decodeVector(text)).toEqual(vector);
  });

  it('refuses text that is not a vector', () => {
    expect(decodeVector('')).toBeUndefined();
    expect(decodeVector('abc')).toBeUndefined();
    expect(decodeVector(encodeVector(Float32Array.of(Number.NaN)))).toBeUndefined();
  });

  it('normalises to unit length and leaves a zero vector zero', () => {
    const unit = normalize(Float32Array.of(3, 4));
    expect([...unit]).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
    expect([...normalize(Float32Array.of(0, 0))]).toEqual([0, 0]);
  });

  it('clamps similarity to 0..1 as the score', () => {
    expect(scoreOf(-0.4)).toBe(0);
    expect(scoreOf(1.0000003)).toBe(1);
    expect(scoreOf(0.123456789)).toBe(0.123457);
  });
});

describe('document kinds', () => {
  it.each([
    ['report.PDF', 'application/octet-stream', 'pdf'],
    ['a.docx', '', 'docx'],
    ['notes.txt', 'application/pdf', 'txt'],
    ['README.md', 'text/plain', 'md'],
    ['x.markdown', '', 'md'],
    ['data.csv', '', 'csv'],
    ['sheet.xlsx', '', 'xlsx'],
    ['photo.png', 'text/plain', undefined],
    ['archive.tar.gz', '', undefined],
    ['README', 'text/plain; charset=utf-8', 'txt'],
    ['upload', 'application/pdf', 'pdf'],
    ['upload', 'image/png', undefined],
  ])('%s sent as %j is %s', (name, type, kind) => {
    expect(documentKindOf(name, type)).toBe(kind);
  });

  it('reads extensions from the last path segment only', () => {
    expect(extensionOf('dir.v2/file')).toBe('');
    expect(extensionOf('.hidden')).toBe('');
    expect(extensionOf('C:\\docs\\Plan.Txt')).toBe('txt');
  });

  it("serves the client's content type, or the format's when it sent none", () => {
    expect(servedContentType('application/octet-stream', 'pdf')).toBe('application/pdf');
    expect(servedContentType('', undefined)).toBe('application/octet-stream');
    expect(servedContentType('text/plain; charset=utf-8', 'txt')).toBe('text/plain; charset=utf-8');
  });
});

describe('memoryConfig', () => {
  it('has the defaults of docs/memory.md', () => {
    expect(memoryConfig()).toEqual({ maxContentTokens: 8000, maxUploadBytes: 500_000_000, chunkTokens: 512, chunkOverlapTokens: 64, maxChunksPerFile: 2000 });
  });

  it('refuses impossible settings', () => {
    expect(() => memoryConfig({ chunkTokens: 0 })).toThrow(RangeError);
    expect(() => memoryConfig({ chunkTokens: 100, chunkOverlapTokens: 100 })).toThrow(RangeError);
    expect(() => memoryConfig({ maxUploadBytes: -1 })).toThrow(RangeError);
    expect(() => memoryConfig({ maxChunksPerFile: 1.5 })).toThrow(RangeError);
  });
});
