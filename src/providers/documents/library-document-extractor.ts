import type { DocumentExtractor, DocumentKind } from '../../core/ports/document-extractor.js';
import { readAll } from './read-all.js';
import { csvText, plainText, xlsxText } from './stream-formats.js';

/** Options of {@link LibraryDocumentExtractor}. */
export interface LibraryDocumentExtractorOptions {
  /**
   * Largest PDF, DOCX or XLSX read (default 64 MiB): those formats are read whole into memory, so a
   * larger one is stored but not indexed. TXT, MD and CSV stream and have no such limit.
   */
  maxBufferedBytes?: number;
}

/** Largest PDF, DOCX or XLSX read whole by default. */
export const DEFAULT_MAX_BUFFERED_BYTES = 64 * 1024 * 1024;

/**
 * Text out of documents with well-kept libraries: PDF with unpdf (Mozilla's pdf.js, page by
 * page), DOCX with mammoth (raw text), XLSX with exceljs (the whole workbook, so shared strings resolve in any entry order), CSV with csv-parse
 * (streaming), TXT and MD as UTF-8. Each library is loaded the first time a document of its format
 * is read, so a runtime that never reads a PDF never loads pdf.js.
 */
export class LibraryDocumentExtractor implements DocumentExtractor {
  private readonly maxBufferedBytes: number;

  constructor(options: LibraryDocumentExtractorOptions = {}) {
    this.maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
  }

  async *extract(kind: DocumentKind, open: () => AsyncIterable<Uint8Array>, size: number): AsyncIterable<string> {
    switch (kind) {
      case 'txt':
      case 'md':
        yield* plainText(open());
        return;
      case 'csv':
        yield* csvText(open());
        return;
      case 'xlsx':
        this.assertReadable(size);
        yield* xlsxText(await readAll(open(), this.maxBufferedBytes));
        return;
      case 'pdf':
        yield* this.pdfText(open(), size);
        return;
      case 'docx':
        yield* this.docxText(open(), size);
        return;
    }
  }

  private async *pdfText(source: AsyncIterable<Uint8Array>, size: number): AsyncIterable<string> {
    this.assertReadable(size);
    const bytes = await readAll(source, this.maxBufferedBytes);
    const { extractText, getDocumentProxy } = await import('unpdf');
    // Verbosity 0: pdf.js reports recoverable damage on the console otherwise.
    const pdf = await getDocumentProxy(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), { verbosity: 0 });
    try {
      const { text } = await extractText(pdf, { mergePages: false });
      for (const page of text) if (page.trim()) yield `${page}\n\n`;
    } finally {
      await pdf.destroy();
    }
  }

  private async *docxText(source: AsyncIterable<Uint8Array>, size: number): AsyncIterable<string> {
    this.assertReadable(size);
    const buffer = await readAll(source, this.maxBufferedBytes);
    const { default: mammoth } = await import('mammoth');
    const { value } = await mammoth.extractRawText({ buffer });
    if (value.trim()) yield value;
  }

  private assertReadable(size: number): void {
    if (size > this.maxBufferedBytes) throw new Error(`document of ${size} bytes is over the ${this.maxBufferedBytes}-byte limit for whole-file formats`);
  }
}
