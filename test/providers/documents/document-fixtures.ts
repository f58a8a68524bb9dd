/**
 * Documents of every indexed format, generated in the test with the libraries an office suite
 * would use (pdf-lib, docx, exceljs), each carrying a phrase found nowhere else.
 */
import { Document, Packer, Paragraph, TextRun } from 'docx';
import ExcelJS from 'exceljs';
import { PDFDocument, StandardFonts } from 'pdf-lib';

export interface Fixture {
  filename: string;
  contentType: string;
  bytes: Uint8Array;
  /** A phrase only this document holds. */
  phrase: string;
}

const encode = (text: string) => new TextEncoder().encode(text);

export async function pdfFixture(phrase: string, pages = 2): Promise<Fixture> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < pages; i++) {
    const page = pdf.addPage();
    page.drawText(`Quarterly operations report, page ${i + 1}.`, { x: 50, y: 720, size: 12, font });
    if (i === pages - 1) page.drawText(phrase, { x: 50, y: 690, size: 12, font });
  }
  return { filename: 'report.pdf', contentType: 'application/pdf', bytes: await pdf.save(), phrase };
}

export async function docxFixture(phrase: string): Promise<Fixture> {
  const document = new Document({
    sections: [{ children: [new Paragraph({ children: [new TextRun('Meeting minutes of the steering committee.')] }), new Paragraph({ children: [new TextRun({ text: phrase, bold: true })] })] }],
  });
  return {
    filename: 'minutes.docx',
    contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    bytes: new Uint8Array(await Packer.toBuffer(document)),
    phrase,
  };
}

export async function xlsxFixture(phrase: string): Promise<Fixture> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Inventory');
  sheet.addRow(['sku', 'description', 'count']);
  sheet.addRow(['A-100', 'Steel bolts', 420]);
  sheet.addRow(['B-200', { richText: [{ text: phrase }] }, 7]);
  sheet.addRow(['C-300', 'Copper wire', { formula: 'B2*2', result: 14 }]);
  workbook.addWorksheet('Notes').addRow(['Checked by the warehouse team']);
  return {
    filename: 'inventory.xlsx',
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    bytes: new Uint8Array(await workbook.xlsx.writeBuffer()),
    phrase,
  };
}

export function csvFixture(phrase: string): Fixture {
  const rows = ['city,note', 'Oslo,"Cold, dark winters"', `Lima,"${phrase}"`, 'Pune,Monsoon season'];
  return { filename: 'cities.csv', contentType: 'text/csv', bytes: encode(`${rows.join('\n')}\n`), phrase };
}

export function txtFixture(phrase: string): Fixture {
  return { filename: 'notes.txt', contentType: 'text/plain', bytes: encode(`Shopping list and reminders.\n${phrase}\nCall the plumber.\n`), phrase };
}

export function mdFixture(phrase: string): Fixture {
  return { filename: 'readme.md', contentType: 'text/markdown', bytes: encode(`# Project notes\n\n- ${phrase}\n- Deploy on Tuesday\n`), phrase };
}

/** One fixture of each indexed format, with distinct phrases. */
export async function everyFormat(): Promise<Fixture[]> {
  return [
    await pdfFixture('The violet heron sleeps beside the granite quarry'),
    await docxFixture('A copper lantern hums softly in the attic'),
    await xlsxFixture('Saffron glacier drifts toward the southern fjord'),
    csvFixture('Turquoise parrots gossip about volcanic marmalade'),
    txtFixture('Nine velvet tortoises rehearse an opera underground'),
    mdFixture('The crimson zeppelin delivers pickled starlight'),
  ];
}
