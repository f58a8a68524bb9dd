import type { DocumentKind } from '../ports/document-extractor.js';

const BY_EXTENSION: Readonly<Record<string, DocumentKind>> = {
  pdf: 'pdf',
  docx: 'docx',
  txt: 'txt',
  text: 'txt',
  md: 'md',
  markdown: 'md',
  csv: 'csv',
  xlsx: 'xlsx',
};

/** The registered media type of each indexed format. */
export const DOCUMENT_CONTENT_TYPES: Readonly<Record<DocumentKind, string>> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

const BY_CONTENT_TYPE: Readonly<Record<string, DocumentKind>> = {
  ...Object.fromEntries(Object.entries(DOCUMENT_CONTENT_TYPES).map(([kind, type]) => [type, kind as DocumentKind])),
  'text/x-markdown': 'md',
  'application/csv': 'csv',
};

/** The lower-case extension of a filename, without the dot ('' when none). */
export function extensionOf(filename: string): string {
  const base = filename.slice(Math.max(filename.lastIndexOf('/'), filename.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

/** The media type without parameters, lower case (`text/plain; charset=utf-8` → `text/plain`). */
function mediaType(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

/**
 * Which indexed format a file is, or undefined when it is stored only. The extension decides when
 * the name has one (`notes.txt` is text whatever type the client sent, `photo.png` is not indexed
 * even if sent as `text/plain`); the content type decides only for a name without an extension.
 */
export function documentKindOf(filename: string, contentType: string): DocumentKind | undefined {
  const extension = extensionOf(filename);
  if (extension) return BY_EXTENSION[extension];
  return BY_CONTENT_TYPE[mediaType(contentType)];
}

/**
 * The content type a file is served with: the client's, unless it sent none or the generic
 * `application/octet-stream`, in which case that of its format when it is an indexed one.
 */
export function servedContentType(contentType: string, kind: DocumentKind | undefined): string {
  const given = contentType.trim();
  if (given && mediaType(given) !== 'application/octet-stream') return given;
  return kind ? DOCUMENT_CONTENT_TYPES[kind] : 'application/octet-stream';
}
