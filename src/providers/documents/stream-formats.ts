import { Readable } from 'node:stream';

/** Text is handed on in pieces of about this many characters, so tiny rows do not cost a call each. */
const PIECE_CHARS = 64 * 1024;

/** UTF-8 text (TXT, MD), decoded as it streams; a byte-order mark is dropped, bad bytes become U+FFFD. */
export async function* plainText(source: AsyncIterable<Uint8Array>): AsyncIterable<string> {
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of source) {
    const text = decoder.decode(chunk, { stream: true });
    if (text) yield text;
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

/** Lines joined into pieces of about {@link PIECE_CHARS} characters. */
async function* inPieces(lines: AsyncIterable<string>): AsyncIterable<string> {
  let piece = '';
  for await (const line of lines) {
    piece += line;
    if (piece.length >= PIECE_CHARS) {
      yield piece;
      piece = '';
    }
  }
  if (piece) yield piece;
}

/** CSV rows as lines of comma-separated cells, parsed as they stream (csv-parse, loaded on first use). */
export async function* csvText(source: AsyncIterable<Uint8Array>): AsyncIterable<string> {
  const { parse } = await import('csv-parse');
  const input = Readable.from(source, { objectMode: false });
  const parser = parse({ bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: true });
  input.on('error', (error) => parser.destroy(error));
  input.pipe(parser);
  async function* lines(): AsyncIterable<string> {
    for await (const row of parser as AsyncIterable<string[]>) yield `${row.join(', ')}\n`;
  }
  try {
    yield* inPieces(lines());
  } finally {
    input.destroy();
    parser.destroy();
  }
}

/** The text of one spreadsheet cell value as exceljs reads it. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString();
  if (typeof value !== 'object') return String(value);
  const cell = value as { richText?: Array<{ text?: string }>; text?: unknown; result?: unknown; error?: unknown; hyperlink?: unknown };
  if (Array.isArray(cell.richText)) return cell.richText.map((run) => run.text ?? '').join('');
  if ('result' in cell) return cellText(cell.result);
  if (cell.text !== undefined) return cellText(cell.text);
  if (typeof cell.error === 'string') return cell.error;
  return '';
}

/**
 * XLSX sheets as a `Sheet: name` line and then one line per row (exceljs, loaded on first use: it
 * costs half a second). The workbook is read whole rather than streamed: Excel writes
 * `xl/sharedStrings.xml` after the worksheets, and a streaming reader meets the rows before the
 * strings they point to (issue #13: the strings were dropped). Reading the whole zip resolves shared
 * strings whatever the entry order, and with styles loaded, date cells read as dates.
 */
export async function* xlsxText(bytes: Uint8Array): AsyncIterable<string> {
  const { default: ExcelJS } = await import('exceljs');
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as unknown as ArrayBuffer);
  async function* lines(): AsyncIterable<string> {
    for (const sheet of workbook.worksheets) {
      const rows: string[] = [];
      sheet.eachRow({ includeEmpty: false }, (row) => {
        const cells = (Array.isArray(row.values) ? row.values.slice(1) : []).map(cellText);
        while (cells.length > 0 && cells[cells.length - 1] === '') cells.pop();
        if (cells.length > 0) rows.push(`${cells.join(', ')}\n`);
      });
      // A sheet without text adds no heading: a workbook with no text yields nothing, so the file
      // is reported `indexed: false` rather than indexed as a list of sheet names.
      if (rows.length === 0) continue;
      yield `${sheet.name ? `Sheet: ${sheet.name}` : 'Sheet'}\n`;
      yield* rows;
    }
  }
  yield* inPieces(lines());
}
