import type { ServiceIdentifier } from '../shared/di.js';

/** The document formats SPEC.md indexes automatically. */
export type DocumentKind = 'pdf' | 'docx' | 'txt' | 'md' | 'csv' | 'xlsx';

/**
 * Reads the text out of a stored document. Formats that can be read as a stream (TXT, MD, CSV,
 * XLSX) are, so a large file never sits whole in memory; PDF and DOCX need the whole file and
 * adapters may refuse them above a size.
 */
export interface DocumentExtractor {
  /**
   * Streams the text of a document of `kind`, piece by piece, in reading order. The caller may
   * stop early (it caps how much is indexed); the adapter then releases the source.
   * @throws Error when the bytes are not a readable document of that kind, or too large to read
   */
  extract(kind: DocumentKind, open: () => AsyncIterable<Uint8Array>, size: number): AsyncIterable<string>;
}

/** Injection token of {@link DocumentExtractor}. */
export const DocumentExtractor = Symbol.for('agent-services/DocumentExtractor') as ServiceIdentifier<DocumentExtractor>;
