import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { LibraryDocumentExtractor } from '../../../src/providers/documents/library-document-extractor.js';

/**
 * XLSX files built entry by entry, so the order of entries in the zip is the test's choice: Excel
 * writes `xl/sharedStrings.xml` after the worksheets, other tools before them.
 */
interface SheetSpec {
  name: string;
  /** Raw `<row>` elements of the sheet. */
  rows: string;
}

const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

async function buildXlsx(sheets: SheetSpec[], sharedStrings: string[], order: 'strings-first' | 'strings-last', styles = false): Promise<Uint8Array> {
  const zip = new JSZip();
  const sheetEntries = sheets.map((sheet, i) => [
    `xl/worksheets/sheet${i + 1}.xml`,
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="${NS}"><sheetData>${sheet.rows}</sheetData></worksheet>`,
  ] as const);
  const stringsEntry = [
    'xl/sharedStrings.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><sst xmlns="${NS}" count="${sharedStrings.length}" uniqueCount="${sharedStrings.length}">${sharedStrings.map((s) => `<si><t>${s}</t></si>`).join('')}</sst>`,
  ] as const;
  zip.file(
    '[Content_Types].xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
      `<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>` +
      `<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>` +
      sheets.map((_, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join('') +
      `<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>` +
      (styles ? `<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>` : '') +
      `</Types>`,
  );
  zip.file(
    '_rels/.rels',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
  );
  zip.file(
    'xl/workbook.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook xmlns="${NS}" xmlns:r="${REL}"><sheets>` +
      sheets.map((sheet, i) => `<sheet name="${sheet.name}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('') +
      `</sheets></workbook>`,
  );
  zip.file(
    'xl/_rels/workbook.xml.rels',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
      sheets.map((_, i) => `<Relationship Id="rId${i + 1}" Type="${REL}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`).join('') +
      `<Relationship Id="rId${sheets.length + 1}" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/>` +
      (styles ? `<Relationship Id="rId${sheets.length + 2}" Type="${REL}/styles" Target="styles.xml"/>` : '') +
      `</Relationships>`,
  );
  if (styles) {
    // Style 1 is number format 14 (a date, m/d/yyyy), so a serial number in a cell with s="1" is a date.
    zip.file(
      'xl/styles.xml',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><styleSheet xmlns="${NS}"><fonts count="1"><font/></fonts><fills count="1"><fill/></fills><borders count="1"><border/></borders>` +
        `<cellStyleXfs count="1"><xf numFmtId="0"/></cellStyleXfs><cellXfs count="2"><xf numFmtId="0" xfId="0"/><xf numFmtId="14" xfId="0" applyNumberFormat="1"/></cellXfs></styleSheet>`,
    );
  }
  if (order === 'strings-first') zip.file(stringsEntry[0], stringsEntry[1]);
  for (const [path, text] of sheetEntries) zip.file(path, text);
  if (order === 'strings-last') zip.file(stringsEntry[0], stringsEntry[1]);
  return zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
}

/** The entry names of a zip, in the order they are stored. */
async function entryOrder(bytes: Uint8Array): Promise<string[]> {
  return Object.keys((await JSZip.loadAsync(bytes)).files);
}

async function textOf(bytes: Uint8Array): Promise<string> {
  let text = '';
  for await (const piece of new LibraryDocumentExtractor().extract('xlsx', async function* () { yield bytes; }, bytes.byteLength)) text += piece;
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
    expect(await textOf(await buildXlsx([{ name: 'Empty', rows: '' }, { name: 'Blank', rows: '<row r="1"></row>' }], [], 'strings-last'))).toBe('');
  });
});
