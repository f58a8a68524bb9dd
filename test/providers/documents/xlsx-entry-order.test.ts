import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { LibraryDocumentExtractor } from '../../../src/providers/documents/library-document-extractor.js';
import { buildXlsx } from '../../support/xlsx-builder.js';

/** The entry names of a zip, in the order they are stored. */
async function entryOrder(bytes: Uint8Array): Promise<string[]> {
  return Object.keys((await JSZip.loadAsync(bytes)).files);
}

async function textOf(bytes: Uint8Array): Promise<string> {
  let text = '';
  for await (const piece of new LibraryDocumentExtractor().extract(
    'xlsx',
    async function* () {
      yield bytes;
    },
    bytes.byteLength,
  ))
    text += piece;
  return text;
}

const SHARED_ROW = '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1"><v>3</v></c></row>';

describe('XLSX text', () => {
  it.each(['strings-first', 'strings-last'] as const)('reads shared strings whatever the entry order (%s)', async (order) => {
    const bytes = await buildXlsx([{ name: 'Sheet1', rows: SHARED_ROW }], ['walrus ferris wheel budget'], order);
    const entries = await entryOrder(bytes);
    const strings = entries.indexOf('xl/sharedStrings.xml');
    const sheet = entries.indexOf('xl/worksheets/sheet1.xml');
    expect(order === 'strings-last' ? strings > sheet : strings < sheet).toBe(true);
    expect(await textOf(bytes)).toBe('Sheet: Sheet1\nwalrus ferris wheel budget, 3\n');
  });

  it('reads inline strings', async () => {
    const rows = '<row r="1"><c r="A1" t="inlineStr"><is><t>inline harbour lantern</t></is></c></row>';
    expect(await textOf(await buildXlsx([{ name: 'Inline', rows }], [], 'strings-last'))).toContain('inline harbour lantern');
  });

  it('reads several sheets, each under its name, with shared strings written last', async () => {
    const bytes = await buildXlsx(
      [
        { name: 'Budget', rows: '<row r="1"><c r="A1" t="s"><v>0</v></c></row>' },
        { name: 'Notes', rows: '<row r="1"><c r="A1" t="s"><v>1</v></c><c r="B1" t="s"><v>0</v></c></row>' },
      ],
      ['copper kettle', 'violet orchard'],
      'strings-last',
    );
    expect(await textOf(bytes)).toBe('Sheet: Budget\ncopper kettle\nSheet: Notes\nviolet orchard, copper kettle\n');
  });

  it('reads a date-formatted cell as a date', async () => {
    // 45306 is 2024-01-15 in Excel's 1900 date system.
    const rows = '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" s="1"><v>45306</v></c></row>';
    const text = await textOf(await buildXlsx([{ name: 'Dates', rows }], ['due'], 'strings-last', true));
    expect(text).toContain('due, 2024-01-15');
  });

  it('yields no text for a workbook without cell text (so the file is not reported indexed)', async () => {
    expect(
      await textOf(
        await buildXlsx(
          [
            { name: 'Empty', rows: '' },
            { name: 'Blank', rows: '<row r="1"></row>' },
          ],
          [],
          'strings-last',
        ),
      ),
    ).toBe('');
  });
});
