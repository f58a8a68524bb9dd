import { describe, expect, it } from 'vitest';
import { LibraryDocumentExtractor } from '../../../src/providers/documents/library-document-extractor.js';
import { cellText } from '../../../src/providers/documents/stream-formats.js';
import type { DocumentKind } from '../../../src/core/ports/document-extractor.js';
import { csvFixture, everyFormat, pdfFixture } from './document-fixtures.js';

const KIND: Record<string, DocumentKind> = { pdf: 'pdf', docx: 'docx', xlsx: 'xlsx', csv: 'csv', txt: 'txt', md: 'md' };

/** Bytes as a stream of small chunks, as a blob store or socket would deliver them. */
function chunked(bytes: Uint8Array, size = 1000): () => AsyncIterable<Uint8Array> {
  return async function* () {
    for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
  };
}

async function textOf(extractor: LibraryDocumentExtractor, kind: DocumentKind, bytes: Uint8Array): Promise<string> {
  let text = '';
  for await (const piece of extractor.extract(kind, chunked(bytes), bytes.byteLength)) text += piece;
  return text;
}

describe('LibraryDocumentExtractor', () => {
  const extractor = new LibraryDocumentExtractor();

  it('reads the text of PDF, DOCX, XLSX, CSV, TXT and MD documents', async () => {
    for (const fixture of await everyFormat()) {
      const kind = KIND[fixture.filename.split('.').pop()!]!;
      const text = await textOf(extractor, kind, fixture.bytes);
      expect(text.replace(/\s+/g, ' '), fixture.filename).toContain(fixture.phrase);
    }
  });

  it('reads every PDF page, every XLSX sheet with its name, and CSV cells without their quotes', async () => {
    const pdf = await textOf(extractor, 'pdf', (await pdfFixture('last page phrase', 3)).bytes);
    expect(pdf).toContain('page 1');
    expect(pdf).toContain('page 3');
    const [, , xlsx] = await everyFormat();
    const sheets = await textOf(extractor, 'xlsx', xlsx!.bytes);
    expect(sheets).toContain('Sheet: Inventory');
    expect(sheets).toContain('Sheet: Notes');
    expect(sheets).toContain('A-100, Steel bolts, 420');
    expect(sheets).toContain('C-300, Copper wire, 14');
    const csv = await textOf(extractor, 'csv', csvFixture('x').bytes);
    expect(csv).toContain('Oslo, Cold, dark winters');
  });

  it('decodes UTF-8 split across chunks and drops a byte-order mark', async () => {
    const bytes = new TextEncoder().encode('\uFEFFgrüße 世界 🎉');
    let text = '';
    for await (const piece of extractor.extract('txt', chunked(bytes, 1), bytes.length)) text += piece;
    expect(text).toBe('grüße 世界 🎉');
  });

  it('fails on bytes that are not a document of the kind', async () => {
    const junk = new TextEncoder().encode('this is not a pdf at all');
    await expect(textOf(extractor, 'pdf', junk)).rejects.toThrow();
    await expect(textOf(extractor, 'docx', junk)).rejects.toThrow();
    await expect(textOf(extractor, 'xlsx', junk)).rejects.toThrow();
  });

  it('refuses a PDF or DOCX over maxBufferedBytes (they are read whole), but streams CSV of any size', async () => {
    const small = new LibraryDocumentExtractor({ maxBufferedBytes: 100 });
    const pdf = await pdfFixture('too big');
    await expect(textOf(small, 'pdf', pdf.bytes)).rejects.toThrow(/limit|too large/);
    const csv = new TextEncoder().encode('a,b\n'.repeat(1000));
    expect((await textOf(small, 'csv', csv)).length).toBeGreaterThan(1000);
  });

  it('stops reading a stream when the consumer stops early', async () => {
    let served = 0;
    const endless = async function* () {
      for (;;) {
        served++;
        yield new TextEncoder().encode('row,value\n'.repeat(1000));
      }
    };
    for await (const piece of extractor.extract('csv', endless, Number.MAX_SAFE_INTEGER)) {
      expect(piece.length).toBeGreaterThan(0);
      break;
    }
    const before = served;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(served).toBe(before);
    expect(served).toBeLessThan(100);
  });
});

describe('cellText', () => {
  it('turns exceljs cell values into text', () => {
    expect(cellText(null)).toBe('');
    expect(cellText(3.5)).toBe('3.5');
    expect(cellText(true)).toBe('true');
    expect(cellText(new Date('2026-01-02T03:04:05.000Z'))).toBe('2026-01-02T03:04:05.000Z');
    expect(cellText({ richText: [{ text: 'a' }, { text: 'b' }] })).toBe('ab');
    expect(cellText({ formula: '1+1', result: 2 })).toBe('2');
    expect(cellText({ text: 'link', hyperlink: 'https://example.test' })).toBe('link');
    expect(cellText({ error: '#DIV/0!' })).toBe('#DIV/0!');
  });
});
